//! A context's modules and launches. A module is a compiled [`Program`] whose code,
//! `.global` data and `.const` data live in video memory the runtime owns (uploaded by the
//! API layer through the copy engine). A launch is a sequence of compute-class (90C0)
//! methods in the pushbuffer (docs/hardware.md, Gdev's order): code address, generic
//! windows, shared and local sizes, the kernel parameters written into constant buffer 0
//! with CB_OFFSET/CB_DATA, module constants in bank 1, grid and block shape, register
//! count, program start, LAUNCH, then a fence. Launches are asynchronous; errors in the
//! kernel surface at the next synchronization.

use super::Inner;
use super::stream::StreamHandle;
use crate::channel::Fence;
use crate::device::Device;
use crate::error::{CuError, Result};
use crate::limits::{CB0_BYTES, MAX_BLOCK, MAX_LOCAL, MAX_LOCAL_PER_BLOCK, block_fits, max_grid, max_param_bytes};
use crate::platform::Platform;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use fifo::Pushbuf;
use hw::class::{CbBind, DimXy, addr40, compute::*, subch};
use ptx::{Kernel, Program};

/// Generic-address window of shared memory.
pub const SHARED_WINDOW_ADDR: u32 = 0x0100_0000;
/// Generic-address window of local memory.
pub const LOCAL_WINDOW_ADDR: u32 = 0x0200_0000;
/// Generic-address window of a thread block cluster's shared memory (4 MiB, below the
/// window of 32-bit device pointers).
pub const SHARED_CLUSTER_WINDOW_ADDR: u32 = 0x0300_0000;

/// Parameter words a launch's pushbuffer carries; the rest go ahead of it.
const INLINE_PARAM_WORDS: usize = 1024;

/// GRID_DIM_XY/BLOCK_DIM_XY data for a shape already checked against the grid and block
/// limits (a grid's x beyond 16 bits goes in GRID_WIDTH too).
fn dim_xy(d: [u32; 3]) -> u32 {
    DimXy::new().with_x(d[0] as u16).with_y(d[1] as u16).into()
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

/// A kernel's parameters, as cuLaunchKernel takes them.
#[derive(Clone, Copy, Debug)]
pub enum Params<'a> {
    /// The whole parameter buffer laid out as the kernel's parameter list
    /// (`extra` with CU_LAUNCH_PARAM_BUFFER_POINTER/SIZE).
    Buffer(&'a [u8]),
    /// One value per parameter (`kernelParams`): each slice has the size the PTX signature
    /// gives its parameter and lands at its offset.
    Args(&'a [&'a [u8]]),
}

/// Launch state of the legacy API (cuFuncSetBlockShape, cuParamSet*, cuLaunchGrid).
#[derive(Clone, Debug, Default)]
pub(crate) struct Legacy {
    pub(crate) block: [u32; 3],
    pub(crate) shared: u32,
    pub(crate) params: Vec<u8>,
}

/// A managed variable of a module (`.attribute(.managed)`) that the loader gave managed
/// memory of its own: host memory at its device address.
#[derive(Clone)]
pub struct ManagedVar {
    /// Its name.
    pub name: String,
    /// Its address (host and device).
    pub addr: u64,
    /// Its size in bytes.
    pub size: u64,
    /// The memory (whole pages from `addr`).
    pub mem: Arc<fifo::SharedMem>,
}

/// A module loaded into a context: its program and where its segments live.
pub(crate) struct Loaded {
    legacy: BTreeMap<u32, Legacy>,
    /// The dynamic shared memory a kernel opted into (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES),
    /// by kernel index, where set.
    dynamic_shared: BTreeMap<u32, u32>,
    /// The shared-memory carveout a kernel prefers (percent of the most; a hint), by kernel
    /// index, where set.
    carveout: BTreeMap<u32, u32>,
    /// Kernels allowed clusters of more than 8 blocks.
    non_portable: alloc::collections::BTreeSet<u32>,
    prog: Program,
    code: u64,
    global: u64,
    constant: Option<(u64, u32)>,
    cb0: u64,
    /// `.global` symbols placed outside the segment: (symbol index, address).
    placed: Vec<(usize, u64)>,
    managed: Vec<ManagedVar>,
    allocs: Vec<u64>,
    /// Some kernel calls `vprintf` or `__assertfail` (the launch names the printf FIFO).
    prints: bool,
    /// Some kernel calls `malloc` or `free` (the launch names the device heap).
    heaps: bool,
}

/// A module's data segments and variables (see [`Loaded::data`]).
#[derive(Clone)]
pub(crate) struct Data {
    pub(crate) global: u64,
    pub(crate) constant: Option<(u64, u32)>,
    pub(crate) placed: Vec<(usize, u64)>,
    pub(crate) managed: Vec<ManagedVar>,
}

/// Where a module's segments were uploaded: code, `.global` data, `.const` data (address
/// and size), the default stream's parameter buffer, and the `.global` symbols placed
/// elsewhere (symbol index, address), the loader's managed variables among them.
pub(crate) struct Segments {
    pub(crate) code: u64,
    pub(crate) global: u64,
    pub(crate) constant: Option<(u64, u32)>,
    pub(crate) cb0: u64,
    pub(crate) placed: Vec<(usize, u64)>,
    pub(crate) managed: Vec<ManagedVar>,
}

impl Loaded {
    /// A module of `prog` whose segments are `seg`, holding the runtime allocations `allocs`.
    pub(crate) fn new(prog: Program, seg: Segments, allocs: Vec<u64>) -> Self {
        let Segments { code, global, constant, cb0, placed, managed } = seg;
        let uses = |op| prog.code.iter().any(|i| i.w0.op_or_err().is_ok_and(|o| o == op));
        let (prints, heaps) = (uses(hw::isa::Op::Printf), uses(hw::isa::Op::Heap));
        Self {
            legacy: BTreeMap::new(),
            dynamic_shared: BTreeMap::new(),
            carveout: BTreeMap::new(),
            non_portable: Default::default(),
            prog,
            code,
            global,
            constant,
            cb0,
            placed,
            managed,
            allocs,
            prints,
            heaps,
        }
    }

    /// The module's data as another copy of it shares it (a gang's other GPUs): `.global`
    /// segment, `.const` segment, placed symbols and managed variables.
    pub(crate) fn data(&self) -> Data {
        Data {
            global: self.global,
            constant: self.constant,
            placed: self.placed.clone(),
            managed: self.managed.clone(),
        }
    }

    /// A copy of a module whose data is `data` (another GPU's copy, reached through the
    /// peer table): its own code and parameter buffer at `code` and `cb0`.
    pub(crate) fn sharing(prog: Program, code: u64, cb0: u64, data: Data, allocs: Vec<u64>) -> Self {
        let Data { global, constant, placed, managed } = data;
        Self::new(prog, Segments { code, global, constant, cb0, placed, managed }, allocs)
    }

    /// Whether the module declares texture or surface references (`.texref`, `.surfref`).
    pub(crate) fn has_references(&self) -> bool {
        !self.prog.textures.is_empty() || !self.prog.surfaces.is_empty()
    }

    /// The managed variables the loader allocated.
    pub(crate) fn managed(&self) -> &[ManagedVar] {
        &self.managed
    }

    /// Its compiled program.
    pub(crate) fn program(&self) -> &Program {
        &self.prog
    }

    /// The runtime allocations holding the module's segments.
    pub(crate) fn allocs(&self) -> &[u64] {
        &self.allocs
    }

    /// The program's address (CODE_ADDRESS).
    pub(crate) fn code(&self) -> u64 {
        self.code
    }

    /// Kernel `index`.
    pub(crate) fn kernel(&self, index: u32) -> Result<&Kernel> {
        self.prog.kernels.get(index as usize).ok_or(CuError::InvalidHandle)
    }

    /// The index of the kernel called `name`.
    pub(crate) fn kernel_index(&self, name: &str) -> Result<u32> {
        self.prog.kernels.iter().position(|k| k.name == name).map(|i| i as u32).ok_or(CuError::NotFound)
    }

    /// The names of the module's kernels.
    pub(crate) fn kernel_names(&self) -> Vec<String> {
        self.prog.kernels.iter().map(|k| k.name.clone()).collect()
    }

    /// A module variable's device address and size. `.const` variables are addressable
    /// too: they live in the buffer bound as constant bank 1.
    pub(crate) fn global(&self, name: &str) -> Result<(u64, u64)> {
        let k = self.prog.symbols.iter().position(|s| s.name == name).ok_or(CuError::NotFound)?;
        let s = &self.prog.symbols[k];
        if let Some(&(_, at)) = self.placed.iter().find(|p| p.0 == k) {
            return Ok((at, s.size as u64));
        }
        let base = match s.space {
            ptx::ast::StateSpace::Global => self.global,
            _ => self.constant.map(|(c, _)| c).ok_or(CuError::NotFound)?,
        };
        Ok((base + s.offset as u64, s.size as u64))
    }

    /// The most dynamic shared memory kernel `index` opted into, if it did.
    pub(crate) fn max_dynamic_shared(&self, index: u32) -> Option<u32> {
        self.dynamic_shared.get(&index).copied()
    }

    /// Kernel `index` opts into `bytes` of dynamic shared memory per block.
    pub(crate) fn set_max_dynamic_shared(&mut self, index: u32, bytes: u32) -> Result<()> {
        self.kernel(index)?;
        self.dynamic_shared.insert(index, bytes);
        Ok(())
    }

    /// Whether kernel `index` may launch clusters of more than 8 blocks
    /// (CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED).
    pub(crate) fn non_portable_cluster(&self, index: u32) -> bool {
        self.non_portable.contains(&index)
    }

    /// Let kernel `index` launch clusters of more than 8 blocks, or not.
    pub(crate) fn set_non_portable_cluster(&mut self, index: u32, allowed: bool) -> Result<()> {
        self.kernel(index)?;
        match allowed {
            true => self.non_portable.insert(index),
            false => self.non_portable.remove(&index),
        };
        Ok(())
    }

    /// The shared-memory carveout kernel `index` prefers (percent), if it set one.
    pub(crate) fn preferred_carveout(&self, index: u32) -> Option<u32> {
        self.carveout.get(&index).copied()
    }

    /// Kernel `index` prefers a carveout of `percent` of the most shared memory (`None`: no
    /// preference).
    pub(crate) fn set_preferred_carveout(&mut self, index: u32, percent: Option<u32>) -> Result<()> {
        self.kernel(index)?;
        match percent {
            Some(p) => self.carveout.insert(index, p),
            None => self.carveout.remove(&index),
        };
        Ok(())
    }

    /// The legacy launch state of kernel `index`.
    pub(crate) fn legacy(&mut self, index: u32) -> Result<&mut Legacy> {
        self.kernel(index)?;
        Ok(self.legacy.entry(index).or_default())
    }

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

/// A kernel parameter buffer as 32-bit CB_DATA words (at least one).
fn param_words(k: &Kernel, params: Params<'_>) -> Result<Vec<u32>> {
    let packed;
    let bytes = match params {
        Params::Buffer(b) => b,
        Params::Args(args) => {
            if args.len() != k.params.len() {
                return Err(CuError::InvalidValue);
            }
            let mut buf = alloc::vec![0u8; k.param_bytes as usize];
            for (a, p) in args.iter().zip(&k.params) {
                if a.len() != p.size as usize {
                    return Err(CuError::InvalidValue);
                }
                let range = p.offset as usize..p.offset as usize + p.size as usize;
                buf.get_mut(range).ok_or(CuError::InvalidImage)?.copy_from_slice(a);
            }
            packed = buf;
            &packed[..]
        }
    };
    if bytes.len() != k.param_bytes as usize {
        return Err(CuError::InvalidValue);
    }
    let mut words: Vec<u32> = bytes
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
    Ok(words)
}

/// Where and how a launch runs: the grid, the block, dynamic shared memory and the stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks per grid dimension.
    pub grid: [u32; 3],
    /// Threads per block dimension.
    pub block: [u32; 3],
    /// Dynamic shared memory bytes.
    pub shared: u32,
    /// The stream ([`StreamHandle::DEFAULT`]: the legacy default stream).
    pub stream: StreamHandle,
    /// A cooperative launch (cuLaunchCooperativeKernel): every block resident at once
    /// (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE otherwise), the grid workspace's address in
    /// `%envreg1` (high word) and `%envreg2` (low word).
    pub cooperative: bool,
    /// The launch's preferred shared-memory carveout, percent of the most
    /// (CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT), in place of the kernel's.
    pub carveout: Option<u32>,
    /// The thread block cluster shape (CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION), if given:
    /// see [`super::cluster::shape`].
    pub cluster: Option<[u32; 3]>,
}

impl LaunchConfig {
    /// A launch of `grid` x `block` with no dynamic shared memory on the default stream.
    pub fn new(grid: [u32; 3], block: [u32; 3]) -> Self {
        Self {
            grid,
            block,
            shared: 0,
            stream: StreamHandle::DEFAULT,
            cooperative: false,
            carveout: None,
            cluster: None,
        }
    }

    /// The same launch with `bytes` of dynamic shared memory.
    pub fn shared(self, bytes: u32) -> Self {
        Self { shared: bytes, ..self }
    }

    /// The same launch on stream `s`.
    pub fn on(self, s: StreamHandle) -> Self {
        Self { stream: s, ..self }
    }
}

impl Inner {
    /// Add a loaded module as `id` (from [`Inner::new_id`]).
    pub(crate) fn module_insert(&mut self, id: u64, l: Loaded) {
        self.modules.insert(id, l);
    }

    /// Take module `id` out of the context; its kernels' ids become invalid.
    pub(crate) fn module_remove(&mut self, id: u64) -> Result<Loaded> {
        let l = self.modules.remove(&id).ok_or(CuError::InvalidHandle)?;
        self.funcs.retain(|_, f| f.0 != id);
        Ok(l)
    }

    /// The id of kernel `name` of module `m`: the same id each time it is asked for.
    pub(crate) fn func_id(&mut self, m: u64, name: &str) -> Result<u64> {
        let f = (m, self.module(m)?.kernel_index(name)?);
        match self.funcs.iter().find(|(_, x)| **x == f) {
            Some((&id, _)) => Ok(id),
            None => {
                let id = self.new_id()?;
                self.funcs.insert(id, f);
                Ok(id)
            }
        }
    }

    /// Kernel `id`: (module id, kernel index).
    pub(crate) fn func(&self, id: u64) -> Result<(u64, u32)> {
        self.funcs.get(&id).copied().ok_or(CuError::InvalidHandle)
    }

    /// Kernel `id`'s legacy launch state (cuFuncSetBlockShape, cuParamSet*).
    pub(crate) fn legacy(&mut self, id: u64) -> Result<&mut Legacy> {
        let (m, i) = self.func(id)?;
        self.module_mut(m)?.legacy(i)
    }

    /// Module `id`.
    pub(crate) fn module(&self, id: u64) -> Result<&Loaded> {
        self.modules.get(&id).ok_or(CuError::InvalidHandle)
    }

    /// Module `id`, to change its legacy launch state.
    pub(crate) fn module_mut(&mut self, id: u64) -> Result<&mut Loaded> {
        self.modules.get_mut(&id).ok_or(CuError::InvalidHandle)
    }

    /// Drop the decoded instructions the compute engine caches (new code may sit where old
    /// code was).
    pub(crate) fn invalidate_code<P: Platform>(&mut self, gpu: &Device<P>) -> Result<()> {
        let ch = self.live()?;
        let mut pb = Pushbuf::<16>::new();
        pb.method(subch::COMPUTE, INVALIDATE_SHADER_CACHES, 0).map_err(|_| CuError::Unknown)?;
        ch.submit(gpu, pb.words())
    }

    /// The printf FIFO's address, made (and mapped) at the first launch that needs it.
    fn printf_area<P: Platform>(&mut self, gpu: &Device<P>) -> Result<u64> {
        if let Some(a) = &self.printf {
            return Ok(a.va);
        }
        let mut held = Vec::new();
        let made = super::printf::PrintfArea::new(gpu, &mut self.vm, &mut held, self.printf_bytes);
        self.live()?.held.extend(held);
        let area = made?;
        gpu.tlb_flush(self.vm.pd)?;
        let va = area.va;
        self.printf = Some(area);
        Ok(va)
    }

    /// The device heap (address, size), made at the first launch that needs it: device
    /// memory of the context's heap size with its header zeroed (an empty heap).
    fn heap_area<P: Platform>(&mut self, gpu: &Device<P>) -> Result<(u64, u64)> {
        if let Some(h) = self.heap {
            return Ok(h);
        }
        let va = self.alloc_vram(gpu, self.heap_bytes, super::memory::Owner::Runtime)?;
        let phys = self.vram_phys(va).ok_or(CuError::Unknown)?;
        gpu.pramin_zero(phys, hw::heap::HEADER)?;
        self.heap = Some((va, self.heap_bytes));
        Ok((va, self.heap_bytes))
    }

    /// The cooperative launches' grid workspace: `{u32 size, u32 barrier}`, zeroed (CUDA's
    /// layout: NVIDIA's cooperative_groups.h reads it from `%envreg1:2` and counts its grid
    /// barrier in the second word, which every completed barrier leaves usable again).
    fn grid_workspace<P: Platform>(&mut self, gpu: &Device<P>) -> Result<u64> {
        if let Some(va) = self.grid_ws {
            return Ok(va);
        }
        let va = self.alloc_vram(gpu, 8, super::memory::Owner::Runtime)?;
        let phys = self.vram_phys(va).ok_or(CuError::Unknown)?;
        gpu.pramin_write(phys, [8u32, 0])?;
        self.grid_ws = Some(va);
        Ok(va)
    }

    /// Launch kernel `index` of module `module` as `cfg` says; returns the stream's fence.
    /// Each channel has its own parameter buffer, so launches on different streams never
    /// share one. `range` (first flattened block id, count) runs only those blocks of the
    /// grid (GRID_FIRST_BLOCK, GRID_BLOCK_COUNT); None runs them all.
    pub(crate) fn launch<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        (module, index): (u64, u32),
        cfg: &LaunchConfig,
        params: Params<'_>,
        range: Option<(u32, u32)>,
    ) -> Result<Fence> {
        let LaunchConfig { grid, block, shared, stream, cooperative, carveout: preferred, cluster } = *cfg;
        let s = stream.local();
        let l = self.module(module)?;
        let k = l.kernel(index)?;
        // Per-parameter values are checked before the shape, a whole buffer after it.
        let early = match params {
            Params::Args(_) => Some(param_words(k, params)?),
            Params::Buffer(_) => None,
        };
        let threads = block.iter().map(|&d| d as u64).product::<u64>();
        let limit = max_grid(gpu.info().compute_capability);
        if grid.contains(&0) || (0..3).any(|i| grid[i] > limit[i]) || !block_fits(block) {
            return Err(CuError::InvalidValue);
        }
        if threads > MAX_BLOCK[0] as u64 || k.max_threads.is_some_and(|m| threads > m as u64) {
            return Err(CuError::InvalidValue);
        }
        let dyn_base = if k.dynamic_shared { k.shared_bytes.div_ceil(16) * 16 } else { k.shared_bytes };
        let total_shared = dyn_base.checked_add(shared).ok_or(CuError::InvalidValue)?;
        // Beyond the default 48 KiB only as much dynamic shared memory as the kernel opted
        // into, and never beyond the device's opt-in limit.
        let max_dynamic = l.max_dynamic_shared(index).unwrap_or(gpu.max_shared_per_block().saturating_sub(dyn_base));
        if shared > max_dynamic || total_shared > gpu.max_shared_per_block_optin() {
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
        let words = match early {
            Some(w) => w,
            None => param_words(k, params)?,
        };
        // CUDA 12.1's 32,764 bytes of parameters from compute capability 7.0; 4,096 before.
        if k.param_bytes > max_param_bytes(gpu.info().compute_capability) {
            return Err(CuError::InvalidValue);
        }
        // The SM's split of its unified L1 and shared memory, as the driver configures it.
        let carveout = hw::occupancy::carveout(
            &gpu.info().sm,
            threads as u32,
            k.regs,
            total_shared,
            preferred.or(l.preferred_carveout(index)),
        );
        let per_sm = hw::occupancy::blocks_per_sm(&gpu.info().sm, threads as u32, k.regs, total_shared);
        let info = gpu.info();
        let non_portable = l.non_portable_cluster(index);
        let cluster = super::cluster::shape(
            (info.compute_capability, (info.gpcs, info.sms)),
            k,
            cluster,
            non_portable,
            grid,
            per_sm,
        )?;
        let n = cluster.dims().iter().product::<u32>();
        if n > 1 && range.is_some_and(|(first, count)| first % n != 0 || count % n != 0) {
            return Err(CuError::NotSupported); // a launch split between devices in parts of clusters
        }
        let (code, mut cb0, constant, pc, prints, heaps) = (l.code, l.cb0, l.constant, k.pc, l.prints, l.heaps);
        let check = self.check.as_ref().map(|a| (u32::from(a.mode), a.table_va, a.report_va));
        let (local, regs) = (k.local_bytes, k.regs);
        let printf = if prints { Some(self.printf_area(gpu)?) } else { None };
        let heap = if heaps { Some(self.heap_area(gpu)?) } else { None };
        if cooperative {
            if gpu.info().compute_capability.0 < 6 {
                return Err(CuError::NotSupported); // as CUDA before Pascal
            }
            // Every block resident at once, so that a grid-wide barrier can be met.
            let blocks = grid.iter().map(|&g| g as u64).product::<u64>();
            let per_sm = hw::occupancy::blocks_per_sm(&gpu.info().sm, threads as u32, regs, total_shared) as u64;
            if blocks > per_sm * gpu.info().sms as u64 {
                return Err(CuError::CooperativeLaunchTooLarge);
            }
        }
        let grid_ws = if cooperative { Some(self.grid_workspace(gpu)?) } else { None };
        if s != 0 {
            cb0 = self.streams.get(&s).ok_or(CuError::InvalidHandle)?.params;
        }
        let mut pb = Pushbuf::<2048>::new();
        self.ref_methods(gpu, module, &mut pb)?;
        self.pool_methods(&mut pb)?;
        let ch = self.ordered(gpu, s)?;
        // Parameters beyond what the launch's pushbuffer carries go first, in pieces, each to
        // its offset of the stream's constant buffer 0 (the grid before reads its own copy,
        // taken at its LAUNCH).
        for (k, part) in words.chunks(INLINE_PARAM_WORDS).enumerate().skip(1) {
            let mut p = Pushbuf::<{ INLINE_PARAM_WORDS + 16 }>::new();
            let at = (k * INLINE_PARAM_WORDS * 4) as u32;
            (|| {
                p.incr(subch::COMPUTE, CB_SIZE, &[CB0_BYTES, addr40::hi(cb0), addr40::lo(cb0)])?;
                p.incr(subch::COMPUTE, CB_OFFSET, &[at])?;
                p.nonincr(subch::COMPUTE, CB_DATA, part)
            })()
            .map_err(|_| CuError::InvalidValue)?;
            ch.submit(gpu, p.words())?;
        }
        let c = subch::COMPUTE;
        let r = (|| {
            pb.incr(c, CODE_ADDRESS_HIGH, &addr40::split(code))?;
            pb.incr(c, SHARED_WINDOW, &[SHARED_WINDOW_ADDR])?;
            pb.incr(c, LOCAL_WINDOW, &[LOCAL_WINDOW_ADDR])?;
            if cluster.explicit() {
                pb.incr(c, CLUSTER_DIM, &[cluster.into(), SHARED_CLUSTER_WINDOW_ADDR])?;
            }
            pb.incr(c, LOCAL_SIZE, &[local])?;
            pb.incr(c, SHARED_SIZE, &[total_shared])?;
            pb.incr(c, L1_CONFIG, &[carveout])?;
            pb.incr(c, CB_SIZE, &[CB0_BYTES, addr40::hi(cb0), addr40::lo(cb0)])?;
            pb.incr(c, CB_BIND, &[CbBind::new().with_valid(true).with_slot(0).into()])?;
            pb.incr(c, CB_OFFSET, &[0])?;
            pb.nonincr(c, CB_DATA, &words[..words.len().min(INLINE_PARAM_WORDS)])?;
            if let Some((cva, csize)) = constant {
                pb.incr(c, CB_SIZE, &[csize, addr40::hi(cva), addr40::lo(cva)])?;
                pb.incr(c, CB_BIND, &[CbBind::new().with_valid(true).with_slot(1).into()])?;
            }
            pb.incr(c, GRID_DIM_XY, &[dim_xy(grid), grid[2]])?;
            if grid[0] > u32::from(u16::MAX) {
                pb.incr(c, GRID_WIDTH, &[grid[0]])?;
            }
            pb.incr(c, BLOCK_DIM_XY, &[dim_xy(block), block[2]])?;
            pb.incr(c, THREADS_PER_BLOCK, &[threads as u32])?;
            pb.incr(c, REGISTER_COUNT, &[regs])?;
            pb.incr(c, BARRIER_COUNT, &[1])?;
            pb.incr(c, PROGRAM_START, &[pc * 16])?;
            if let Some((mode, table, report)) = check {
                pb.incr(
                    c,
                    CHECK_MODE,
                    &[mode, addr40::hi(table), addr40::lo(table), addr40::hi(report), addr40::lo(report)],
                )?;
            }
            if let Some(va) = printf {
                pb.incr(c, PRINTF_ADDRESS_HIGH, &[addr40::hi(va), addr40::lo(va)])?;
            }
            if let Some((va, size)) = heap {
                pb.incr(c, HEAP_ADDRESS_HIGH, &[addr40::hi(va), addr40::lo(va), (size >> 32) as u32, size as u32])?;
            }
            if let Some((first, count)) = range {
                pb.incr(c, GRID_FIRST_BLOCK, &[first, count])?;
            }
            if let Some(ws) = grid_ws {
                pb.incr(c, ENVREG_SELECT, &[1])?;
                pb.nonincr(c, ENVREG_DATA, &[(ws >> 32) as u32, ws as u32])?;
            }
            pb.incr(c, BEGIN_GRID, &[0])?;
            pb.incr(c, LAUNCH, &[0])?;
            pb.incr(c, END_GRID, &[0])
        })();
        r.map_err(|_| CuError::InvalidValue)?;
        let f = ch.fence(&mut pb)?;
        ch.submit(gpu, pb.words())?;
        gpu.count_job(ch.chid, false);
        self.refs_used(module, s, f);
        Ok(f)
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
        assert_eq!(image_kind(&[]), ImageKind::Unknown);
        assert_eq!(image_kind(&[0xFF, 0xFE, 0x2E]), ImageKind::Unknown);
    }
}
