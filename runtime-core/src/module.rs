//! Modules and launches: PTX is compiled ("JIT") by the `ptx` crate at load time, the code,
//! `.global` data and `.const` data are uploaded to video memory through the copy engine,
//! and a launch is a sequence of compute-class (90C0) methods in the pushbuffer (docs/hardware.md,
//! Gdev's order): code address, generic windows, shared and local sizes, the kernel
//! parameters written into constant buffer 0 with CB_OFFSET/CB_DATA, module constants in
//! bank 1, grid and block shape, register count, program start, LAUNCH, then a fence.
//! Launches are asynchronous; errors in the kernel surface at the next synchronization.

use crate::channel::Fence;
use crate::error::{CuError, Result};
use crate::gpu::{CtxHandle, Gpu};
use crate::platform::{Level, Platform};
use crate::rlog;
use crate::stream::StreamHandle;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use fifo::Pushbuf;
use hw::class::{CbBind, DimXy, addr40, compute::*, subch};
use ptx::Program;

/// Generic-address window of shared memory.
pub const SHARED_WINDOW_ADDR: u32 = 0x0100_0000;
/// Generic-address window of local memory.
pub const LOCAL_WINDOW_ADDR: u32 = 0x0200_0000;
/// Kernel parameter space (constant buffer 0), bytes.
pub const PARAM_BYTES: u32 = 4096;
/// Most shared memory per block.
pub const MAX_SHARED: u32 = 48 * 1024;
/// Most threads per block, and per block dimension.
pub const MAX_BLOCK: [u32; 3] = [1024, 1024, 64];
/// GRID_DIM_XY/BLOCK_DIM_XY data for a shape already checked against [`MAX_GRID`] and the
/// block limits (each extent fits 16 bits).
fn dim_xy(d: [u32; 3]) -> u32 {
    DimXy::new().with_x(d[0] as u16).with_y(d[1] as u16).into()
}

/// Most blocks per grid dimension (the 16-bit fields of GRID_DIM_XY).
pub const MAX_GRID: [u32; 3] = [65535, 65535, 65535];
/// Registers available to one block.
pub const REGS_PER_BLOCK: u32 = 65536;
/// Local memory per thread (CUDA's limit).
pub const MAX_LOCAL: u32 = 512 * 1024;
/// Local memory of one block (the simulator's bound on what a block may hold).
pub const MAX_LOCAL_PER_BLOCK: u64 = 64 << 20;

/// Whether every block dimension is between 1 and its limit.
fn block_fits(block: [u32; 3]) -> bool {
    !block.contains(&0) && (0..3).all(|i| block[i] <= MAX_BLOCK[i])
}

/// A loaded module (per context).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ModuleHandle(pub u64);

/// A kernel of a loaded module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncHandle {
    /// Its module.
    pub module: ModuleHandle,
    /// Index of the kernel in the module.
    pub index: u32,
}

/// A kernel as the device sees its launches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LaunchId {
    /// Channel of the context.
    pub chid: u32,
    /// Program address (CODE_ADDRESS).
    pub code: u64,
    /// Entry point (PROGRAM_START), bytes from `code`.
    pub entry: u32,
}

/// What `cuFuncGetAttribute` reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FuncAttributes {
    /// Registers per thread.
    pub regs: u32,
    /// Static shared memory bytes.
    pub shared_bytes: u32,
    /// Local memory bytes per thread.
    pub local_bytes: u32,
    /// Parameter bytes.
    pub param_bytes: u32,
    /// Most threads per block a launch may use.
    pub max_threads: u32,
    /// Parameters: (offset, size) each.
    pub params: Vec<(u32, u32)>,
}

/// What a module image is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageKind<'a> {
    /// PTX source text.
    Ptx(&'a str),
    /// An rgdev module container.
    Container,
    /// An NVIDIA cubin (ELF) or fatbin: machine code for other GPUs.
    Nvidia,
    /// Not a module.
    Unknown,
}

/// Classify a module image by its bytes.
pub fn image_kind(image: &[u8]) -> ImageKind<'_> {
    const FATBIN: [u8; 4] = 0xBA55_ED50u32.to_le_bytes();
    const FATBIN_WRAPPER: [u8; 4] = 0x466B_243Bu32.to_le_bytes();
    if ptx::container::is_container(image) {
        return ImageKind::Container;
    }
    if image.starts_with(b"\x7fELF") || image.starts_with(&FATBIN) || image.starts_with(&FATBIN_WRAPPER) {
        return ImageKind::Nvidia;
    }
    // PTX: text (possibly NUL-terminated, as cuModuleLoadData receives it) with a .version.
    let text = image.split(|&b| b == 0).next().unwrap_or(&[]);
    match core::str::from_utf8(text) {
        Ok(s) if s.contains(".version") => ImageKind::Ptx(s),
        _ => ImageKind::Unknown,
    }
}

/// Launch state of the legacy API (cuFuncSetBlockShape, cuParamSet*, cuLaunchGrid).
#[derive(Clone, Debug, Default)]
pub(crate) struct Legacy {
    block: [u32; 3],
    shared: u32,
    params: Vec<u8>,
}

pub(crate) struct Loaded {
    legacy: BTreeMap<u32, Legacy>,
    prog: Program,
    code: u64,
    global: u64,
    constant: Option<(u64, u32)>,
    cb0: u64,
    allocs: Vec<u64>,
}

impl Loaded {
    /// For a sanitizer record of a launch of this module: the kernel's name and the PTX
    /// lines of the access and of a race's other access.
    pub(crate) fn describe(&self, r: &hw::check::CheckRecord) -> Option<(String, u32, u32)> {
        if r.code != self.code {
            return None;
        }
        let k = self.prog.kernels.iter().find(|k| k.pc == r.entry)?;
        let line = |pc: u32| self.prog.lines.get(pc as usize).copied().unwrap_or(0);
        let other = if r.kind == hw::check::CheckKind::Race { line(r.other_pc) } else { 0 };
        Some((k.name.clone(), line(r.pc), other))
    }
}

impl<P: Platform> Gpu<P> {
    /// Compile PTX and load it into a context (cuModuleLoadData with PTX). The error of a
    /// bad module is CUDA_ERROR_INVALID_PTX, and the compiler's message is logged.
    pub fn module_load_ptx(&self, h: CtxHandle, src: &str) -> Result<ModuleHandle> {
        let prog = ptx::compile_ptx(src).map_err(|e| {
            rlog!(&self.platform, Level::Error, "ptx: {e}");
            CuError::InvalidPtx
        })?;
        self.module_load(h, prog)
    }

    /// Load a module image of any kind (cuModuleLoadData): PTX text is compiled, an rgdev
    /// container is loaded as is, an NVIDIA cubin (ELF) or fatbin gets
    /// CUDA_ERROR_NO_BINARY_FOR_GPU, anything else CUDA_ERROR_INVALID_IMAGE.
    pub fn module_load_image(&self, h: CtxHandle, image: &[u8]) -> Result<ModuleHandle> {
        match image_kind(image) {
            ImageKind::Container => self.module_load(h, Program::from_container(image).ok_or(CuError::InvalidImage)?),
            ImageKind::Ptx(src) => self.module_load_ptx(h, src),
            ImageKind::Nvidia => Err(CuError::NoBinaryForGpu),
            ImageKind::Unknown => Err(CuError::InvalidImage),
        }
    }

    /// Load a compiled program into a context.
    pub fn module_load(&self, h: CtxHandle, prog: Program) -> Result<ModuleHandle> {
        let mut allocs = Vec::new();
        let r = self.module_upload(h, &prog, &mut allocs);
        match r {
            Ok((code, global, constant, cb0)) => self.with_ctx(h, |_, c| {
                let id = c.next_module;
                c.next_module += 1;
                c.modules.insert(id, Loaded { legacy: BTreeMap::new(), prog, code, global, constant, cb0, allocs });
                Ok(ModuleHandle(id))
            }),
            Err(e) => {
                let _ = self.runtime_free(h, &allocs);
                Err(e)
            }
        }
    }

    #[allow(clippy::type_complexity)]
    fn module_upload(
        &self,
        h: CtxHandle,
        prog: &Program,
        allocs: &mut Vec<u64>,
    ) -> Result<(u64, u64, Option<(u64, u32)>, u64)> {
        let mut alloc = |bytes: u64| -> Result<u64> {
            let p = self.runtime_alloc(h, bytes.max(16))?;
            allocs.push(p);
            Ok(p)
        };
        let global = alloc(prog.global_size as u64)?;
        let code_bytes = prog.code_bytes(global);
        let code = alloc(code_bytes.len() as u64)?;
        let cb0 = alloc(PARAM_BYTES as u64)?;
        let constant = if prog.const_size == 0 {
            None
        } else {
            let c = alloc(prog.const_size as u64)?;
            Some((c, prog.const_size))
        };
        // Segments start zeroed, then take their initialized prefix.
        let zero = |ptr: u64, size: u32| -> Result<()> {
            if size > 0 {
                self.memset(h, ptr, crate::MemsetValue::U8(0), size as u64)?;
            }
            Ok(())
        };
        zero(global, prog.global_size)?;
        self.memcpy_htod(h, global, &prog.global_init)?;
        self.memcpy_htod(h, code, &code_bytes)?;
        if let Some((c, size)) = constant {
            zero(c, size)?;
            self.memcpy_htod(h, c, &prog.const_init)?;
        }
        // The new code may sit where old code was: drop decoded instructions.
        self.with_ctx(h, |gpu, c| {
            let ch = c.live()?;
            let mut pb = Pushbuf::<16>::new();
            pb.method(subch::COMPUTE, INVALIDATE_SHADER_CACHES, 0).map_err(|_| CuError::Unknown)?;
            ch.submit(gpu, pb.words())
        })?;
        Ok((code, global, constant, cb0))
    }

    /// Unload a module and free its memory (cuModuleUnload).
    pub fn module_unload(&self, h: CtxHandle, m: ModuleHandle) -> Result<()> {
        let loaded = self.with_ctx(h, |_, c| c.modules.remove(&m.0).ok_or(CuError::InvalidHandle))?;
        self.runtime_free(h, &loaded.allocs)
    }

    /// A kernel by name (cuModuleGetFunction).
    pub fn module_get_function(&self, h: CtxHandle, m: ModuleHandle, name: &str) -> Result<FuncHandle> {
        self.with_ctx(h, |_, c| {
            let l = c.modules.get(&m.0).ok_or(CuError::InvalidHandle)?;
            let index = l.prog.kernels.iter().position(|k| k.name == name).ok_or(CuError::NotFound)?;
            Ok(FuncHandle { module: m, index: index as u32 })
        })
    }

    /// A module variable's device address and size (cuModuleGetGlobal). `.const` variables
    /// are addressable too: they live in the buffer bound as constant bank 1.
    pub fn module_get_global(&self, h: CtxHandle, m: ModuleHandle, name: &str) -> Result<(u64, u64)> {
        self.with_ctx(h, |_, c| {
            let l = c.modules.get(&m.0).ok_or(CuError::InvalidHandle)?;
            let s = l.prog.symbol(name).ok_or(CuError::NotFound)?;
            let base = match s.space {
                ptx::ast::StateSpace::Global => l.global,
                _ => l.constant.map(|(c, _)| c).ok_or(CuError::NotFound)?,
            };
            Ok((base + s.offset as u64, s.size as u64))
        })
    }

    /// Names of the kernels of a module.
    pub fn module_kernels(&self, h: CtxHandle, m: ModuleHandle) -> Result<Vec<String>> {
        self.with_ctx(h, |_, c| {
            let l = c.modules.get(&m.0).ok_or(CuError::InvalidHandle)?;
            Ok(l.prog.kernels.iter().map(|k| k.name.clone()).collect())
        })
    }

    /// Registers one block may use: CUDA's per-block limit, or less on a device whose SMs
    /// have fewer.
    pub fn max_regs_per_block(&self) -> u32 {
        REGS_PER_BLOCK.min(self.info().sm.regs)
    }

    /// Shared memory one block may use: CUDA's 48 KiB, or less on a device whose SMs have
    /// less.
    pub fn max_shared_per_block(&self) -> u32 {
        MAX_SHARED.min(self.info().sm.shared)
    }

    /// A kernel's resource use and parameter layout (cuFuncGetAttribute).
    pub fn func_attributes(&self, h: CtxHandle, f: FuncHandle) -> Result<FuncAttributes> {
        self.with_ctx(h, |gpu, c| {
            let l = c.modules.get(&f.module.0).ok_or(CuError::InvalidHandle)?;
            let k = l.prog.kernels.get(f.index as usize).ok_or(CuError::InvalidHandle)?;
            let by_regs = gpu.max_regs_per_block() / k.regs.max(1) / 32 * 32;
            Ok(FuncAttributes {
                regs: k.regs,
                shared_bytes: k.shared_bytes,
                local_bytes: k.local_bytes,
                param_bytes: k.param_bytes,
                max_threads: k.max_threads.unwrap_or(MAX_BLOCK[0]).min(MAX_BLOCK[0]).min(by_regs),
                params: k.params.iter().map(|p| (p.offset, p.size)).collect(),
            })
        })
    }

    /// How the device identifies this kernel's launches in its statistics and traces: the
    /// context's channel, the program address (CODE_ADDRESS) and the entry point
    /// (PROGRAM_START, bytes).
    pub fn func_launch_id(&self, h: CtxHandle, f: FuncHandle) -> Result<LaunchId> {
        self.with_ctx(h, |_, c| {
            let l = c.modules.get(&f.module.0).ok_or(CuError::InvalidHandle)?;
            let k = l.prog.kernels.get(f.index as usize).ok_or(CuError::InvalidHandle)?;
            let (code, entry) = (l.code, k.pc * 16);
            Ok(LaunchId { chid: c.live()?.chid, code, entry })
        })
    }

    fn legacy<T>(&self, h: CtxHandle, f: FuncHandle, op: impl FnOnce(&mut Legacy) -> Result<T>) -> Result<T> {
        self.with_ctx(h, |_, c| {
            let l = c.modules.get_mut(&f.module.0).ok_or(CuError::InvalidHandle)?;
            if f.index as usize >= l.prog.kernels.len() {
                return Err(CuError::InvalidHandle);
            }
            op(l.legacy.entry(f.index).or_default())
        })
    }

    /// cuFuncSetBlockShape.
    pub fn func_set_block_shape(&self, h: CtxHandle, f: FuncHandle, block: [u32; 3]) -> Result<()> {
        if !block_fits(block) {
            return Err(CuError::InvalidValue);
        }
        self.legacy(h, f, |l| {
            l.block = block;
            Ok(())
        })
    }

    /// cuFuncSetSharedSize: dynamic shared memory of later cuLaunchGrid calls.
    pub fn func_set_shared_size(&self, h: CtxHandle, f: FuncHandle, bytes: u32) -> Result<()> {
        if bytes > MAX_SHARED {
            return Err(CuError::InvalidValue);
        }
        self.legacy(h, f, |l| {
            l.shared = bytes;
            Ok(())
        })
    }

    /// cuParamSetSize: the size of the parameter buffer.
    pub fn param_set_size(&self, h: CtxHandle, f: FuncHandle, bytes: u32) -> Result<()> {
        if bytes > PARAM_BYTES {
            return Err(CuError::InvalidValue);
        }
        self.legacy(h, f, |l| {
            l.params.resize(bytes as usize, 0);
            Ok(())
        })
    }

    /// cuParamSeti/cuParamSetf/cuParamSetv: raw bytes at `offset` of the parameter buffer
    /// (a 64-bit pointer may arrive as two 32-bit halves).
    pub fn param_set(&self, h: CtxHandle, f: FuncHandle, offset: u32, bytes: &[u8]) -> Result<()> {
        let end = (offset as usize).checked_add(bytes.len()).ok_or(CuError::InvalidValue)?;
        if end > PARAM_BYTES as usize {
            return Err(CuError::InvalidValue);
        }
        self.legacy(h, f, |l| {
            if l.params.len() < end {
                l.params.resize(end, 0);
            }
            l.params[offset as usize..end].copy_from_slice(bytes);
            Ok(())
        })
    }

    /// cuLaunchGrid: launch with the shape, shared size and parameter bytes set before.
    /// The parameter buffer must be at least the kernel's parameter size; bytes beyond it
    /// are ignored, as the driver copies only the declared parameters.
    pub fn launch_grid(&self, h: CtxHandle, f: FuncHandle, grid: [u32; 2]) -> Result<Fence> {
        // An unset block shape is all zeros, which `launch` rejects.
        let (block, shared, mut params) = self.legacy(h, f, |l| Ok((l.block, l.shared, l.params.clone())))?;
        let need = self.func_attributes(h, f)?.param_bytes as usize;
        if params.len() < need {
            return Err(CuError::InvalidValue);
        }
        params.truncate(need);
        self.launch(h, f, [grid[0], grid[1], 1], block, shared, &params)
    }

    /// Launch with one value per parameter (cuLaunchKernel's `kernelParams`): each slice
    /// must have the size the PTX signature gives its parameter, and lands at its offset.
    pub fn launch_with_args(
        &self,
        h: CtxHandle,
        f: FuncHandle,
        grid: [u32; 3],
        block: [u32; 3],
        shared: u32,
        args: &[&[u8]],
    ) -> Result<Fence> {
        self.launch_with_args_on(h, StreamHandle::DEFAULT, f, grid, block, shared, args)
    }

    /// [`Gpu::launch_with_args`] on stream `s`; returns the fence of the stream's channel.
    #[allow(clippy::too_many_arguments)]
    pub fn launch_with_args_on(
        &self,
        h: CtxHandle,
        stream: StreamHandle,
        f: FuncHandle,
        grid: [u32; 3],
        block: [u32; 3],
        shared: u32,
        args: &[&[u8]],
    ) -> Result<Fence> {
        let attrs = self.func_attributes(h, f)?;
        if args.len() != attrs.params.len() {
            return Err(CuError::InvalidValue);
        }
        let mut buf = alloc::vec![0u8; attrs.param_bytes as usize];
        for (a, &(off, size)) in args.iter().zip(&attrs.params) {
            if a.len() != size as usize {
                return Err(CuError::InvalidValue);
            }
            let dst = buf.get_mut(off as usize..off as usize + size as usize).ok_or(CuError::InvalidImage)?;
            dst.copy_from_slice(a);
        }
        self.launch_on(h, stream, f, grid, block, shared, &buf)
    }

    /// Launch `f` on a `grid` of `block`-shaped blocks with `shared` bytes of dynamic shared
    /// memory; `params` is the whole parameter buffer laid out as [`FuncAttributes::params`]
    /// (cuLaunchKernel's `extra` with CU_LAUNCH_PARAM_BUFFER_POINTER/SIZE).
    /// Returns the launch's fence; the kernel runs asynchronously.
    pub fn launch(
        &self,
        h: CtxHandle,
        f: FuncHandle,
        grid: [u32; 3],
        block: [u32; 3],
        shared: u32,
        params: &[u8],
    ) -> Result<Fence> {
        self.launch_on(h, StreamHandle::DEFAULT, f, grid, block, shared, params)
    }

    /// [`Gpu::launch`] on stream `stream`; returns the fence of the stream's channel. Each
    /// channel has its own parameter buffer, so launches on different streams never share
    /// one.
    #[allow(clippy::too_many_arguments)]
    pub fn launch_on(
        &self,
        h: CtxHandle,
        stream: StreamHandle,
        f: FuncHandle,
        grid: [u32; 3],
        block: [u32; 3],
        shared: u32,
        params: &[u8],
    ) -> Result<Fence> {
        self.with_ctx(h, |gpu, c| {
            let l = c.modules.get(&f.module.0).ok_or(CuError::InvalidHandle)?;
            let k = l.prog.kernels.get(f.index as usize).ok_or(CuError::InvalidHandle)?;
            let threads = block.iter().map(|&d| d as u64).product::<u64>();
            if grid.contains(&0) || (0..3).any(|i| grid[i] > MAX_GRID[i]) || !block_fits(block) {
                return Err(CuError::InvalidValue);
            }
            if threads > MAX_BLOCK[0] as u64 || k.max_threads.is_some_and(|m| threads > m as u64) {
                return Err(CuError::InvalidValue);
            }
            let dyn_base = if k.dynamic_shared { k.shared_bytes.div_ceil(16) * 16 } else { k.shared_bytes };
            let total_shared = dyn_base.checked_add(shared).ok_or(CuError::InvalidValue)?;
            if total_shared > gpu.max_shared_per_block() {
                return Err(CuError::InvalidValue);
            }
            // The block must fit on one SM of this device (its registers, threads, shared
            // memory), by the rule the device's dispatcher applies.
            if k.regs as u64 * threads.div_ceil(32) * 32 > gpu.max_regs_per_block() as u64
                || hw::occupancy::blocks_per_sm(&gpu.info().sm, threads as u32, k.regs, total_shared) == 0
                || k.local_bytes > MAX_LOCAL
                || k.local_bytes as u64 * threads > MAX_LOCAL_PER_BLOCK
            {
                return Err(CuError::LaunchOutOfResources);
            }
            if params.len() != k.param_bytes as usize {
                return Err(CuError::InvalidValue);
            }
            let mut words: Vec<u32> = params
                .chunks(4)
                .map(|b| {
                    let mut w = [0u8; 4];
                    w[..b.len()].copy_from_slice(b);
                    u32::from_le_bytes(w)
                })
                .collect();
            if words.is_empty() {
                words.push(0);
            }
            let (code, mut cb0, constant, pc) = (l.code, l.cb0, l.constant, k.pc);
            let check = c.check.as_ref().map(|a| (u32::from(a.mode), a.table_va, a.report_va));
            let local = k.local_bytes;
            let regs = k.regs;
            if stream.0 != 0 {
                cb0 = c.streams.get(&stream.0).ok_or(CuError::InvalidHandle)?.params;
            }
            let ch = c.ordered(gpu, stream.0)?;
            let mut pb = Pushbuf::<2048>::new();
            let s = subch::COMPUTE;
            let r = (|| {
                pb.incr(s, CODE_ADDRESS_HIGH, &addr40::split(code))?;
                pb.incr(s, SHARED_WINDOW, &[SHARED_WINDOW_ADDR])?;
                pb.incr(s, LOCAL_WINDOW, &[LOCAL_WINDOW_ADDR])?;
                pb.incr(s, LOCAL_SIZE, &[local])?;
                pb.incr(s, SHARED_SIZE, &[total_shared])?;
                pb.incr(s, CB_SIZE, &[PARAM_BYTES, addr40::hi(cb0), addr40::lo(cb0)])?;
                pb.incr(s, CB_BIND, &[CbBind::new().with_valid(true).with_slot(0).into()])?;
                pb.incr(s, CB_OFFSET, &[0])?;
                pb.nonincr(s, CB_DATA, &words)?;
                if let Some((cva, csize)) = constant {
                    pb.incr(s, CB_SIZE, &[csize, addr40::hi(cva), addr40::lo(cva)])?;
                    pb.incr(s, CB_BIND, &[CbBind::new().with_valid(true).with_slot(1).into()])?;
                }
                pb.incr(s, GRID_DIM_XY, &[dim_xy(grid), grid[2]])?;
                pb.incr(s, BLOCK_DIM_XY, &[dim_xy(block), block[2]])?;
                pb.incr(s, THREADS_PER_BLOCK, &[threads as u32])?;
                pb.incr(s, REGISTER_COUNT, &[regs])?;
                pb.incr(s, BARRIER_COUNT, &[1])?;
                pb.incr(s, PROGRAM_START, &[pc * 16])?;
                if let Some((mode, table, report)) = check {
                    pb.incr(
                        s,
                        CHECK_MODE,
                        &[mode, addr40::hi(table), addr40::lo(table), addr40::hi(report), addr40::lo(report)],
                    )?;
                }
                pb.incr(s, BEGIN_GRID, &[0])?;
                pb.incr(s, LAUNCH, &[0])?;
                pb.incr(s, END_GRID, &[0])
            })();
            r.map_err(|_| CuError::InvalidValue)?;
            let f = ch.fence(&mut pb)?;
            ch.submit(gpu, pb.words())?;
            Ok(f)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_classified_by_their_bytes() {
        let ptx = ".version 6.0\n.target sm_70\n.address_size 64\n";
        assert_eq!(image_kind(ptx.as_bytes()), ImageKind::Ptx(ptx));
        let mut nul = ptx.as_bytes().to_vec();
        nul.push(0);
        assert_eq!(image_kind(&nul), ImageKind::Ptx(ptx));
        assert_eq!(image_kind(b"\x7fELF\x02\x01\x01"), ImageKind::Nvidia);
        assert_eq!(image_kind(&0xBA55_ED50u32.to_le_bytes()), ImageKind::Nvidia);
        assert_eq!(image_kind(b"RGDEVMOD\x01\0\0\0"), ImageKind::Container);
        assert_eq!(image_kind(b"hello"), ImageKind::Unknown);
        assert_eq!(image_kind(&[0xFF, 0xFE, 0x2E]), ImageKind::Unknown);
        assert_eq!(image_kind(&[]), ImageKind::Unknown);
    }
}
