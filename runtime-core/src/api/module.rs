//! Module and launch calls: loading (PTX is compiled by the `ptx` crate at load time, the
//! segments are uploaded through the copy engine), kernels and their attributes, the
//! legacy launch state, and one launch entry point taking a stream.

use super::{CtxHandle, Gpu, Object, StreamHandle, object};
use crate::channel::Fence;
use crate::context::Inner;
use crate::context::memory::{MemsetValue, Owner};
use crate::context::module::{Data, ImageKind, LaunchConfig, Loaded, ManagedVar, Params, Segments, image_kind};
use crate::device::Device;
use crate::error::{CuError, Result};
use crate::limits::{MAX_BLOCK, MAX_SHARED, PARAM_BYTES, block_fits};
use crate::platform::{Level, Platform};
use crate::rlog;
use alloc::string::String;
use alloc::vec::Vec;
use ptx::Program;

/// A loaded module of a context (an object handle: see the API layer's documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ModuleHandle(pub u64);

object_handle!(ModuleHandle, "module");

/// A kernel of a loaded module (an object handle; asking a module for the same kernel
/// again gives the same handle).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncHandle(pub u64);

object_handle!(FuncHandle, "kernel");

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
    /// Most dynamic shared memory a launch may use (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES):
    /// what the kernel opted into ([`Gpu::func_set_max_dynamic_shared`]), else what the
    /// default 48 KiB per block leaves beside its static shared memory.
    pub max_dynamic_shared: u32,
    /// The shared-memory carveout the kernel prefers, percent of the most
    /// (CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT; -1: none).
    pub preferred_carveout: i32,
    /// Parameters: (offset, size) each.
    pub params: Vec<(u32, u32)>,
    /// The thread block cluster shape it launches with (`.reqnctapercluster`), if any.
    pub cluster: Option<[u32; 3]>,
    /// Whether a launch must give a cluster shape (`.explicitcluster`).
    pub cluster_must_be_set: bool,
    /// Whether it may launch clusters of more than 8 blocks
    /// (CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED).
    pub non_portable_cluster: bool,
}

impl<P: Platform> Gpu<P> {
    /// Compile PTX and load it into a context (cuModuleLoadData with PTX). The error of a
    /// bad module is CUDA_ERROR_INVALID_PTX (CUDA_ERROR_NOT_SUPPORTED when it uses an
    /// instruction rgdev does not implement, `wgmma` say), and the compiler's message is
    /// logged.
    pub fn module_load_ptx(&self, h: CtxHandle, src: &str) -> Result<ModuleHandle> {
        let prog = ptx::compile_ptx_with(src, &self.jit_options(None)).map_err(|e| {
            rlog!(&self.dev.platform, Level::Error, "ptx: {e}");
            if e.unsupported { CuError::NotSupported } else { CuError::InvalidPtx }
        })?;
        self.module_load(h, prog)
    }

    /// The compiler's options for this device: its SM's limits and occupancy rule (the
    /// registers `.maxntid` with `.minnctapersm` leave a kernel, the ABI registers of its
    /// architecture), and `max_regs` (CU_JIT_MAX_REGISTERS, ptxas's `-maxrregcount`).
    pub fn jit_options(&self, max_regs: Option<u32>) -> ptx::Options {
        ptx::Options { max_regs, sm: self.info().sm, ..ptx::Options::default() }
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
        self.module_load_placed(h, prog, &[])
    }

    /// Load a compiled program into a context with the `.global` variables `place` names
    /// (name, address) at those addresses rather than in the module's segment: the
    /// program's code addresses them there, and cuModuleGetGlobal answers them. Managed
    /// variables (`.attribute(.managed)`) not named get managed memory of their own,
    /// holding their initial value ([`Gpu::module_managed`]); without unified addressing a
    /// module with such variables is NOT_SUPPORTED.
    pub fn module_load_placed(&self, h: CtxHandle, prog: Program, place: &[(&str, u64)]) -> Result<ModuleHandle> {
        let id = self.with_ctx(h, |_, c| c.new_id())?;
        let mut allocs = Vec::new();
        match self.module_upload(h, &prog, &mut allocs, place) {
            Ok(seg) => self.with_ctx(h, |_, c| {
                c.module_insert(id, Loaded::new(prog, seg, allocs));
                Ok(ModuleHandle(object(h, id)))
            }),
            Err(e) => {
                let _ = self.runtime_free(h, &allocs);
                Err(e)
            }
        }
    }

    /// Allocate a program's segments and upload them (through the copy engine, in the
    /// default stream's order).
    fn module_upload(
        &self,
        h: CtxHandle,
        prog: &Program,
        allocs: &mut Vec<u64>,
        place: &[(&str, u64)],
    ) -> Result<Segments> {
        let (mut placed, mut managed) = (Vec::new(), Vec::new());
        for (k, s) in prog.symbols.iter().enumerate().filter(|(_, s)| s.space == ptx::ast::StateSpace::Global) {
            if let Some(&(_, at)) = place.iter().find(|p| p.0 == s.name) {
                placed.push((k, at));
            } else if s.managed {
                let size = (s.size as u64).max(1);
                let (addr, mem) = self.with_ctx(h, |gpu, c| c.alloc_managed(gpu, size, Owner::Runtime))?;
                allocs.push(addr);
                placed.push((k, addr));
                managed.push(ManagedVar { name: s.name.clone(), addr, size: s.size as u64, mem });
            }
        }
        let mut alloc = |bytes: u64| -> Result<u64> {
            let p = self.runtime_alloc(h, bytes.max(16))?;
            allocs.push(p);
            Ok(p)
        };
        let global = alloc(prog.global_size as u64)?;
        let constant = if prog.const_size == 0 {
            None
        } else {
            let c = alloc(prog.const_size as u64)?;
            Some((c, prog.const_size))
        };
        let code_bytes = prog.code_bytes_placed(global, constant.map_or(0, |c| c.0), &placed);
        // The segments' initial bytes, addresses in them relocated as the code's are.
        let [global_init, const_init] = prog.init_bytes_placed(global, constant.map_or(0, |c| c.0), &placed);
        // A managed variable's initial value: its bytes of the segment image (zero past it).
        for m in &managed {
            let Some(s) = prog.symbols.iter().find(|s| s.name == m.name) else { continue };
            let init = global_init.get(s.offset as usize..).unwrap_or(&[]);
            m.mem.write(0, &init[..init.len().min(s.size as usize)]).map_err(|_| CuError::Unknown)?;
        }
        let code = alloc(code_bytes.len() as u64)?;
        let cb0 = alloc(crate::limits::CB0_BYTES as u64)?;
        // Segments start zeroed, then take their initialized prefix.
        let zero = |ptr: u64, size: u32| -> Result<()> {
            if size > 0 {
                self.memset(h, StreamHandle::DEFAULT, ptr, MemsetValue::U8(0), size as u64)?;
            }
            Ok(())
        };
        zero(global, prog.global_size)?;
        self.memcpy_htod(h, global, &global_init)?;
        self.memcpy_htod(h, code, &code_bytes)?;
        if let Some((c, size)) = constant {
            zero(c, size)?;
            self.memcpy_htod(h, c, &const_init)?;
        }
        // The new code may sit where old code was: drop decoded instructions.
        self.with_ctx(h, |gpu, c| c.invalidate_code(gpu))?;
        Ok(Segments { code, global, constant, cb0, placed, managed })
    }

    /// The managed variables the loader gave memory of their own in module `m`.
    pub fn module_managed(&self, h: CtxHandle, m: ModuleHandle) -> Result<Vec<ManagedVar>> {
        self.with_objs(h, &[m.named()], |_, c| Ok(c.module(m.id())?.managed().to_vec()))
    }

    /// Unload a module and free its memory (cuModuleUnload).
    pub fn module_unload(&self, h: CtxHandle, m: ModuleHandle) -> Result<()> {
        let (loaded, indices) =
            self.with_objs(h, &[m.named()], |_, c| Ok((c.module_remove(m.id())?, c.refs_remove(m.id()))))?;
        let freed = self.runtime_free(h, loaded.allocs());
        self.printf_flush(h);
        // Its references' pool entries, after its work (runtime_free waited for it).
        let released = self.with_ctx(h, |gpu, c| {
            c.refs_release(gpu, &indices);
            Ok(())
        });
        freed.and(released)
    }

    /// A kernel by name (cuModuleGetFunction).
    pub fn module_get_function(&self, h: CtxHandle, m: ModuleHandle, name: &str) -> Result<FuncHandle> {
        self.with_objs(h, &[m.named()], |_, c| Ok(FuncHandle(object(h, c.func_id(m.id(), name)?))))
    }

    /// A module variable's device address and size (cuModuleGetGlobal). `.const` variables
    /// are addressable too: they live in the buffer bound as constant bank 1.
    pub fn module_get_global(&self, h: CtxHandle, m: ModuleHandle, name: &str) -> Result<(u64, u64)> {
        self.with_objs(h, &[m.named()], |_, c| c.module(m.id())?.global(name))
    }

    /// Names of the kernels of a module.
    pub fn module_kernels(&self, h: CtxHandle, m: ModuleHandle) -> Result<Vec<String>> {
        self.with_objs(h, &[m.named()], |_, c| Ok(c.module(m.id())?.kernel_names()))
    }

    /// A kernel's resource use and parameter layout (cuFuncGetAttribute).
    pub fn func_attributes(&self, h: CtxHandle, f: FuncHandle) -> Result<FuncAttributes> {
        self.with_objs(h, &[f.named()], |gpu, c| {
            let (m, i) = c.func(f.id())?;
            let l = c.module(m)?;
            let k = l.kernel(i)?;
            let by_regs = gpu.max_regs_per_block() / k.regs.max(1) / 32 * 32;
            let max_dynamic_shared =
                l.max_dynamic_shared(i).unwrap_or(gpu.max_shared_per_block().saturating_sub(k.shared_bytes));
            Ok(FuncAttributes {
                max_dynamic_shared,
                preferred_carveout: l.preferred_carveout(i).map_or(-1, |p| p as i32),
                regs: k.regs,
                shared_bytes: k.shared_bytes,
                local_bytes: k.local_bytes,
                param_bytes: k.param_bytes,
                max_threads: k.max_threads.unwrap_or(MAX_BLOCK[0]).min(MAX_BLOCK[0]).min(by_regs),
                params: k.params.iter().map(|p| (p.offset, p.size)).collect(),
                cluster: k.cluster,
                cluster_must_be_set: k.explicit_cluster,
                non_portable_cluster: l.non_portable_cluster(i),
            })
        })
    }

    /// Let launches of kernel `f` form clusters of more than 8 blocks, up to 16
    /// (cuFuncSetAttribute with CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED).
    pub fn func_set_non_portable_cluster(&self, h: CtxHandle, f: FuncHandle, allowed: bool) -> Result<()> {
        self.with_objs(h, &[f.named()], |_, c| {
            let (m, i) = c.func(f.id())?;
            c.module_mut(m)?.set_non_portable_cluster(i, allowed)
        })
    }

    /// Let launches of kernel `f` use up to `bytes` of dynamic shared memory per block
    /// (cuFuncSetAttribute with CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES): beyond the
    /// default 48 KiB, up to the device's opt-in limit less the kernel's static shared
    /// memory (CUDA_ERROR_INVALID_VALUE past it).
    pub fn func_set_max_dynamic_shared(&self, h: CtxHandle, f: FuncHandle, bytes: u32) -> Result<()> {
        self.with_objs(h, &[f.named()], |gpu, c| {
            let (m, i) = c.func(f.id())?;
            let l = c.module_mut(m)?;
            let fixed = l.kernel(i)?.shared_bytes;
            if bytes > gpu.max_shared_per_block_optin().saturating_sub(fixed) {
                return Err(CuError::InvalidValue);
            }
            l.set_max_dynamic_shared(i, bytes)
        })
    }

    /// The shared-memory carveout kernel `f` prefers, `percent` of the most shared memory
    /// per SM, or -1 for none (cuFuncSetAttribute with
    /// CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT): a hint the launch's
    /// configuration honours when it asks for no less than occupancy needs
    /// ([`hw::occupancy::carveout`]); what the SM does not give shared memory is L1.
    /// CUDA_ERROR_INVALID_VALUE outside -1..=100.
    pub fn func_set_preferred_carveout(&self, h: CtxHandle, f: FuncHandle, percent: i32) -> Result<()> {
        let p = match percent {
            -1 => None,
            0..=100 => Some(percent as u32),
            _ => return Err(CuError::InvalidValue),
        };
        self.with_objs(h, &[f.named()], |_, c| {
            let (m, i) = c.func(f.id())?;
            c.module_mut(m)?.set_preferred_carveout(i, p)
        })
    }

    /// How the device identifies this kernel's launches in its statistics and traces: the
    /// context's channel, the program address (CODE_ADDRESS) and the entry point
    /// (PROGRAM_START, bytes).
    pub fn func_launch_id(&self, h: CtxHandle, f: FuncHandle) -> Result<LaunchId> {
        self.with_objs(h, &[f.named()], |_, c| {
            let (m, i) = c.func(f.id())?;
            let l = c.module(m)?;
            let (code, entry) = (l.code(), l.kernel(i)?.pc * 16);
            Ok(LaunchId { chid: c.live()?.chid, code, entry })
        })
    }

    /// cuFuncSetBlockShape.
    pub fn func_set_block_shape(&self, h: CtxHandle, f: FuncHandle, block: [u32; 3]) -> Result<()> {
        if !block_fits(block) {
            return Err(CuError::InvalidValue);
        }
        self.with_objs(h, &[f.named()], |_, c| {
            c.legacy(f.id())?.block = block;
            Ok(())
        })
    }

    /// cuFuncSetSharedSize: dynamic shared memory of later cuLaunchGrid calls.
    pub fn func_set_shared_size(&self, h: CtxHandle, f: FuncHandle, bytes: u32) -> Result<()> {
        if bytes > MAX_SHARED {
            return Err(CuError::InvalidValue);
        }
        self.with_objs(h, &[f.named()], |_, c| {
            c.legacy(f.id())?.shared = bytes;
            Ok(())
        })
    }

    /// cuParamSetSize: the size of the parameter buffer.
    pub fn param_set_size(&self, h: CtxHandle, f: FuncHandle, bytes: u32) -> Result<()> {
        if bytes > PARAM_BYTES {
            return Err(CuError::InvalidValue);
        }
        self.with_objs(h, &[f.named()], |_, c| {
            c.legacy(f.id())?.params.resize(bytes as usize, 0);
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
        self.with_objs(h, &[f.named()], |_, c| {
            let l = c.legacy(f.id())?;
            if l.params.len() < end {
                l.params.resize(end, 0);
            }
            l.params[offset as usize..end].copy_from_slice(bytes);
            Ok(())
        })
    }

    /// cuLaunchGrid: launch on the default stream with the shape, shared size and
    /// parameter bytes set before. The parameter buffer must be at least the kernel's
    /// parameter size; bytes beyond it are ignored, as the driver copies only the declared
    /// parameters.
    pub fn launch_grid(&self, h: CtxHandle, f: FuncHandle, grid: [u32; 2]) -> Result<Fence> {
        self.launch_refs_ready(h, &[f.named()], f, |gpu, c| {
            let (cfg, params) = legacy_launch(c, f, grid)?;
            c.launch(gpu, c.func(f.id())?, &cfg, Params::Buffer(&params), None)
        })
    }

    /// Launch `f` as `cfg` says with `params` (cuLaunchKernel). Returns the fence of the
    /// launch's stream; the kernel runs asynchronously.
    pub fn launch(&self, h: CtxHandle, f: FuncHandle, cfg: &LaunchConfig, params: Params<'_>) -> Result<Fence> {
        self.launch_refs_ready(h, &[f.named(), cfg.stream.named()], f, |gpu, c| {
            c.launch(gpu, c.func(f.id())?, cfg, params, None)
        })
    }

    /// Run launch `go` of kernel `f` under the context's lock once no kernel in flight
    /// reads texture-reference entries the launch would rewrite (waiting for those
    /// kernels outside the lock).
    pub(crate) fn launch_refs_ready(
        &self,
        h: CtxHandle,
        named: &[Option<u64>],
        f: FuncHandle,
        mut go: impl FnMut(&Device<P>, &mut Inner) -> Result<Fence>,
    ) -> Result<Fence> {
        loop {
            let r = self.with_objs(h, named, |gpu, c| {
                let waits = c.ref_waits(c.func(f.id())?.0)?;
                if waits.is_empty() { go(gpu, c).map(Ok) } else { Ok(Err(waits)) }
            })?;
            match r {
                Ok(fence) => return Ok(fence),
                Err(waits) => waits.iter().try_for_each(|w| w.wait(&self.dev))?,
            }
        }
    }
}

/// The launch cuLaunchGrid makes of kernel `f`'s legacy state (cuFuncSetBlockShape,
/// cuFuncSetSharedSize, cuParamSet*) over `grid`: the parameter buffer must hold at least
/// the kernel's parameters (the bytes beyond are dropped); an unset block shape is all
/// zeros, which the launch rejects.
pub(crate) fn legacy_launch(
    c: &mut crate::context::Inner,
    f: FuncHandle,
    grid: [u32; 2],
) -> Result<(LaunchConfig, alloc::vec::Vec<u8>)> {
    let (m, i) = c.func(f.id())?;
    let need = c.module(m)?.kernel(i)?.param_bytes as usize;
    let l = c.legacy(f.id())?;
    let (block, shared, mut params) = (l.block, l.shared, l.params.clone());
    if params.len() < need {
        return Err(CuError::InvalidValue);
    }
    params.truncate(need);
    Ok((LaunchConfig::new([grid[0], grid[1], 1], block).shared(shared), params))
}

impl<P: Platform> Gpu<P> {
    /// A module sharing `data` with another GPU's copy: its own code and parameter buffer.
    pub(crate) fn module_load_sharing(&self, h: CtxHandle, prog: ptx::Program, data: Data) -> Result<ModuleHandle> {
        let id = self.with_ctx(h, |_, c| c.new_id())?;
        let const_base = data.constant.map_or(0, |c| c.0);
        let code_bytes = prog.code_bytes_placed(data.global, const_base, &data.placed);
        let mut allocs = Vec::new();
        let r = (|| {
            let code = self.runtime_alloc(h, (code_bytes.len() as u64).max(16))?;
            allocs.push(code);
            let cb0 = self.runtime_alloc(h, crate::limits::CB0_BYTES as u64)?;
            allocs.push(cb0);
            self.memcpy_htod(h, code, &code_bytes)?;
            self.with_ctx(h, |gpu, c| c.invalidate_code(gpu))?;
            Ok((code, cb0))
        })();
        match r {
            Ok((code, cb0)) => self.with_ctx(h, |_, c| {
                c.module_insert(id, Loaded::sharing(prog, code, cb0, data, allocs));
                Ok(ModuleHandle(object(h, id)))
            }),
            Err(e) => {
                let _ = self.runtime_free(h, &allocs);
                Err(e)
            }
        }
    }
}
