//! Managed memory: cuMemAllocManaged, the managed variables of modules, the advice and
//! prefetch calls with their range attributes, cuStreamAttachMemAsync, and the private
//! table (cuGetExportTable) through which rgdev's libcudart places a program's
//! `__managed__` variables.
//!
//! Managed memory is host memory at its device address under unified addressing (runtime
//! core's `alloc_managed`). On devices of compute capability 6.0 and later it is paged
//! ([`crate::demand`]; `RGDEV_UVM=host` opts out): its pages migrate to the GPU that
//! touches them (by the copy engine) and come home when the host synchronizes,
//! prefetches move them, and the fault service acts on the advice. Otherwise it is mapped
//! into every context of every GPU, where the one pointer serves the host and every
//! kernel in place (concurrent managed access, direct host access).
//! Advice and prefetches are recorded per 4 KiB page by the unified-memory service
//! (runtime-core's `uvm`, which acts on them) and answered by the range attributes as CUDA
//! defines them; this file keeps the ranges (their kind, host and device addresses) the C
//! ABI needs for cuMemFree and the pointer attributes. A module's managed variables (nvcc's) get managed memory of their
//! own from the loader, paged as the rest; a program's `__managed__` variables, which
//! clang leaves in the program's data, are mapped where they are ([`map_managed_data`])
//! and paged there.

use crate::state::{STACK, State, check_device, current, guard, handle, initialized, state};
use crate::{CUdeviceptr, CUresult, Handle, apitrace, module, raw, stream};
use backend_user::CtxHandle;
use backend_user::CuError;
use backend_user::Result;
use backend_user::UserDev;
use runtime_core::ModuleHandle;
use runtime_core::uvm::ManagedKind;
use std::ffi::c_char;
use std::ffi::c_int;
use std::ffi::c_uint;
use std::ffi::c_void;
use std::sync::Arc;

/// `CUmemAttach_flags`.
const ATTACH_GLOBAL: c_uint = 1;
const ATTACH_HOST: c_uint = 2;
const ATTACH_SINGLE: c_uint = 4;
/// `CU_DEVICE_CPU` and `CU_DEVICE_INVALID`.
const DEVICE_CPU: c_int = -1;
const DEVICE_INVALID: c_int = -2;
/// `CUmem_advise`.
mod advise {
    use std::ffi::c_int;
    pub const SET_READ_MOSTLY: c_int = 1;
    pub const UNSET_READ_MOSTLY: c_int = 2;
    pub const SET_PREFERRED_LOCATION: c_int = 3;
    pub const UNSET_PREFERRED_LOCATION: c_int = 4;
    pub const SET_ACCESSED_BY: c_int = 5;
    pub const UNSET_ACCESSED_BY: c_int = 6;
}
/// `CUmem_range_attribute`.
mod range_attr {
    use std::ffi::c_int;
    pub const READ_MOSTLY: c_int = 1;
    pub const PREFERRED_LOCATION: c_int = 2;
    pub const ACCESSED_BY: c_int = 3;
    pub const LAST_PREFETCH_LOCATION: c_int = 4;
    pub const PREFERRED_LOCATION_TYPE: c_int = 5;
    pub const PREFERRED_LOCATION_ID: c_int = 6;
    pub const LAST_PREFETCH_LOCATION_TYPE: c_int = 7;
    pub const LAST_PREFETCH_LOCATION_ID: c_int = 8;
}
use crate::vmm::{
    CUmemLocation as MemLocation, LOCATION_DEVICE, LOCATION_HOST, LOCATION_HOST_NUMA, LOCATION_HOST_NUMA_CURRENT,
    LOCATION_INVALID,
};

/// What one page of managed memory was advised (runtime-core's `uvm::Adv`: preferred a
/// device, DEVICE_CPU or DEVICE_INVALID; accessed-by bit 0 the CPU, bit d + 1 device d) and
/// last prefetched to (DEVICE_INVALID if never): the unified-memory service keeps both.
type Advice = (runtime_core::uvm::Adv, c_int);

/// What a managed range is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// cuMemAllocManaged memory (cuMemFree frees it).
    Alloc,
    /// A managed variable the loader gave memory, of this module.
    Var(u64),
    /// Pages of the program's data holding its `__managed__` variables.
    Data,
}

/// Managed memory of a context: host addresses `[host, host + bytes)`, device addresses
/// from `dptr` (the same under unified addressing, except for program data that could not
/// be mapped at its host address).
pub(crate) struct Range {
    pub(crate) ctx: CtxHandle,
    pub(crate) host: usize,
    pub(crate) dptr: u64,
    pub(crate) bytes: usize,
    pub(crate) kind: Kind,
    /// Keeps the memory alive.
    _mem: Arc<fifo::SharedMem>,
}

impl Range {
    /// The host address of `p` if `[p, p + n)` lies in the range (by host or device address).
    fn host_of(&self, p: u64, n: u64) -> Option<usize> {
        let inside = |base: u64| p >= base && p.checked_add(n).is_some_and(|e| e <= base + self.bytes as u64);
        if inside(self.host as u64) {
            Some(p as usize)
        } else if inside(self.dptr) {
            Some(self.host + (p - self.dptr) as usize)
        } else {
            None
        }
    }
}

/// The managed range of the current context (or any, under unified addressing) holding
/// `[p, p + n)`, and the host address of `p`; INVALID_VALUE if none does.
fn find(st: &mut State, p: u64, n: u64) -> Result<(&mut Range, usize)> {
    if n == 0 {
        return Err(CuError::InvalidValue);
    }
    let current = STACK.with(|s| s.borrow().last().copied());
    let unified = st.gpus[0].dev.gpu().unified_addressing();
    st.managed
        .iter_mut()
        .filter(|r| unified || Some(r.ctx) == current)
        .find_map(|r| r.host_of(p, n).map(|h| (r, h)))
        .ok_or(CuError::InvalidValue)
}

/// For pointer attributes: the managed range holding `p` and its (host, device) addresses.
pub(crate) fn lookup(st: &State, p: u64) -> Option<(&Range, usize, u64)> {
    st.managed.iter().find_map(|r| {
        let h = r.host_of(p, 1)?;
        Some((r, h, r.dptr + (h - r.host) as u64))
    })
}

/// The device pointer of `[p, p + n)` if it lies in managed memory of context `ctx`.
pub(crate) fn device_of(st: &State, ctx: CtxHandle, p: usize, n: usize) -> Option<u64> {
    st.managed.iter().filter(|r| r.ctx == ctx).find_map(|r| {
        let h = r.host_of(p as u64, n as u64)?;
        Some(r.dptr + (h - r.host) as u64)
    })
}

/// Take cuMemAllocManaged memory at `p` of the current context out of the state, if it is.
pub(crate) fn take_alloc(st: &mut State, ctx: CtxHandle, p: u64) -> Option<Range> {
    let k = st.managed.iter().position(|r| r.kind == Kind::Alloc && r.ctx == ctx && r.dptr == p)?;
    Some(st.managed.swap_remove(k))
}

/// Record the managed variables the loader gave memory in module `m` of context `h`: paged
/// as cuMemAllocManaged memory is, where that is; else tracked for their advice.
pub(crate) fn loaded(gpu: &UserDev, h: CtxHandle, m: ModuleHandle) -> Result<()> {
    let vars = gpu.module_managed(h, m)?;
    for v in &vars {
        crate::demand::uvm().add_managed(gpu, h, v.addr, v.mem.clone(), ManagedKind::Variable)?;
    }
    let mut st = state()?;
    for v in vars {
        let bytes = v.mem.len();
        st.managed.push(Range {
            ctx: h,
            host: v.addr as usize,
            dptr: v.addr,
            bytes,
            kind: Kind::Var(m.0),
            _mem: v.mem,
        });
    }
    Ok(())
}

/// Module `m` of context `h` is about to be unloaded: its managed variables' pages come
/// home and stop being paged, after the context's work, and their advice goes.
pub(crate) fn unloading(gpu: &UserDev, h: CtxHandle, m: ModuleHandle) {
    let vars = gpu.module_managed(h, m).unwrap_or_default();
    let uvm = crate::demand::uvm();
    if vars.iter().any(|v| uvm.paged(v.addr, 1)) {
        let _ = gpu.ctx_synchronize(h);
    }
    if gpu.unified_addressing() {
        for v in vars {
            uvm.remove(v.addr);
        }
    }
}

/// Forget the managed variables of module `m` (unloaded).
pub(crate) fn unloaded(st: &mut State, m: ModuleHandle) {
    st.managed.retain(|r| r.kind != Kind::Var(m.0));
}

/// Whether `dev` is a device ordinal of the system.
fn device_ok(dev: c_int) -> bool {
    check_device(dev).is_ok()
}

/// A location as CU_DEVICE_CPU or a device ordinal; INVALID_DEVICE for a bad device,
/// INVALID_VALUE for a bad location type.
fn location(l: MemLocation) -> Result<c_int> {
    match l.kind {
        LOCATION_DEVICE if device_ok(l.id) => Ok(l.id),
        LOCATION_DEVICE => Err(CuError::InvalidDevice),
        LOCATION_HOST | LOCATION_HOST_NUMA | LOCATION_HOST_NUMA_CURRENT => Ok(DEVICE_CPU),
        _ => Err(CuError::InvalidValue),
    }
}

/// cuMemAllocManaged: `bytes` of managed memory, attached globally (CU_MEM_ATTACH_GLOBAL)
/// or to the host (CU_MEM_ATTACH_HOST, a hint here: every stream and the host may reach
/// it). NOT_SUPPORTED without unified addressing.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemAllocManaged(dptr: *mut CUdeviceptr, bytes: usize, flags: c_uint) -> CUresult {
    apitrace::call("cuMemAllocManaged", None, || {
        guard(|| {
            let (gpu, h) = current()?;
            if dptr.is_null() || bytes == 0 || !matches!(flags, ATTACH_GLOBAL | ATTACH_HOST) {
                return Err(CuError::InvalidValue);
            }
            let (p, mem) = gpu.mem_alloc_managed(h, bytes as u64)?;
            // Every context of every GPU reaches it on demand: its pages migrate to the
            // GPU that touches them (paged), or are mapped where they are.
            crate::demand::uvm().add_managed(&gpu, h, p, mem.clone(), ManagedKind::Alloc)?;
            let r = Range { ctx: h, host: p as usize, dptr: p, bytes, kind: Kind::Alloc, _mem: mem };
            state()?.managed.push(r);
            raw::put(dptr, p)
        })
    })
}

/// cuMemAdvise: advice for the pages of `[p, p + n)` of managed memory, `dev` a device or
/// CU_DEVICE_CPU (ignored for read-mostly advice).
#[unsafe(no_mangle)]
pub extern "C" fn cuMemAdvise(p: CUdeviceptr, n: usize, advice: c_int, dev: c_int) -> CUresult {
    guard(|| advise(p, n, advice, dev))
}

/// cuMemAdvise_v2: as cuMemAdvise, the device given as a location.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemAdvise_v2(p: CUdeviceptr, n: usize, advice: c_int, loc: MemLocation) -> CUresult {
    guard(|| {
        let read_mostly = matches!(advice, advise::SET_READ_MOSTLY | advise::UNSET_READ_MOSTLY);
        let dev = if read_mostly { location(loc).unwrap_or(DEVICE_CPU) } else { location(loc)? };
        advise(p, n, advice, dev)
    })
}

fn advise(p: CUdeviceptr, n: usize, advice: c_int, dev: c_int) -> Result<()> {
    initialized()?;
    if !(advise::SET_READ_MOSTLY..=advise::UNSET_ACCESSED_BY).contains(&advice) {
        return Err(CuError::InvalidValue);
    }
    let needs_device = advice >= advise::SET_PREFERRED_LOCATION;
    if needs_device && dev != DEVICE_CPU && !device_ok(dev) {
        return Err(CuError::InvalidDevice);
    }
    let mut st = state()?;
    let (r, h) = find(&mut st, p, n as u64)?;
    let d = r.dptr + (h - r.host) as u64;
    drop(st);
    let bit = 1u32 << (dev + 1).clamp(0, 31);
    let apply = |read_mostly: &mut bool, preferred: &mut c_int, accessed_by: &mut u32| match advice {
        advise::SET_READ_MOSTLY => *read_mostly = true,
        advise::UNSET_READ_MOSTLY => *read_mostly = false,
        advise::SET_PREFERRED_LOCATION => *preferred = dev,
        advise::UNSET_PREFERRED_LOCATION => *preferred = DEVICE_INVALID,
        advise::SET_ACCESSED_BY => *accessed_by |= bit,
        _ => *accessed_by &= !bit,
    };
    // Recorded by the unified-memory service; on paged memory its fault service acts on it.
    crate::demand::uvm().advise(d, n as u64, |a| apply(&mut a.read_mostly, &mut a.preferred, &mut a.accessed_by));
    Ok(())
}

/// cuMemPrefetchAsync: `[p, p + n)` of managed memory to device `dev` or the host
/// (CU_DEVICE_CPU), in the order of `stream`: paged memory moves now; memory that is not
/// paged stays where it is (host memory every agent reaches). The range's
/// LAST_PREFETCH_LOCATION records the call.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemPrefetchAsync(p: CUdeviceptr, n: usize, dev: c_int, stream: Handle) -> CUresult {
    apitrace::call("cuMemPrefetchAsync", Some(stream), || guard(|| prefetch(p, n, dev, stream)))
}

/// cuMemPrefetchAsync_v2: as cuMemPrefetchAsync, to a location; `flags` must be 0.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemPrefetchAsync_v2(
    p: CUdeviceptr,
    n: usize,
    loc: MemLocation,
    flags: c_uint,
    stream: Handle,
) -> CUresult {
    guard(|| {
        if flags != 0 {
            return Err(CuError::InvalidValue);
        }
        prefetch(p, n, location(loc)?, stream)
    })
}

fn prefetch(p: CUdeviceptr, n: usize, dev: c_int, stream: Handle) -> Result<()> {
    let (gpu, h, sh) = stream::stream_of(stream)?;
    if dev != DEVICE_CPU && !device_ok(dev) {
        return Err(CuError::InvalidDevice);
    }
    gpu.stream_flags(h, sh)?;
    let mut st = state()?;
    let (r, host) = find(&mut st, p, n as u64)?;
    let base = r.dptr + (host - r.host) as u64;
    drop(st);
    crate::demand::uvm().prefetched(base, n as u64, dev);
    // Paged memory moves now: to the device (mapped for the stream's context when it is
    // that device's), or home to the host.
    let to = (dev != DEVICE_CPU).then(|| (dev as usize, (gpu.ordinal() as c_int == dev).then_some(h)));
    crate::demand::uvm().prefetch(base, n as u64, to);
    Ok(())
}

/// cuStreamAttachMemAsync: attach managed memory at `p` (`length` 0: all of it) to a
/// stream, globally or to the host. Checked and accepted: every agent may reach managed
/// memory at any time here, so an attachment changes no access.
#[unsafe(no_mangle)]
pub extern "C" fn cuStreamAttachMemAsync(stream: Handle, p: CUdeviceptr, length: usize, flags: c_uint) -> CUresult {
    guard(|| {
        let (gpu, h, sh) = stream::stream_of(stream)?;
        gpu.stream_flags(h, sh)?;
        if !matches!(flags, ATTACH_GLOBAL | ATTACH_HOST | ATTACH_SINGLE) {
            return Err(CuError::InvalidValue);
        }
        let mut st = state()?;
        let (r, _) = find(&mut st, p, length.max(1) as u64)?;
        // Allocations are attached whole; managed variables may be attached in part.
        if r.kind == Kind::Alloc && (r.dptr != p || (length != 0 && length != r.bytes)) {
            return Err(CuError::InvalidValue);
        }
        Ok(())
    })
}

/// What the pages of a range agree on: `f`'s value if every page has the same, else `none`.
fn uniform(pages: &[Advice], f: impl Fn(&Advice) -> c_int, none: c_int) -> c_int {
    let v = pages.first().map_or(none, &f);
    if pages.iter().all(|a| f(a) == v) { v } else { none }
}

/// A location as CUmemLocationType and id: (DEVICE, d), (HOST, -1) or (INVALID, -2).
fn location_of(dev: c_int) -> (c_int, c_int) {
    match dev {
        DEVICE_INVALID => (LOCATION_INVALID, DEVICE_INVALID),
        DEVICE_CPU => (LOCATION_HOST, DEVICE_CPU),
        d => (LOCATION_DEVICE, d),
    }
}

/// Write range attribute `attr` of the pages `pages` into `data` (`size` bytes).
fn range_attribute(data: *mut c_void, size: usize, attr: c_int, pages: &[Advice]) -> Result<()> {
    use range_attr::*;
    let int = |v: c_int| if size == 4 { raw::put(data.cast::<c_int>(), v) } else { Err(CuError::InvalidValue) };
    let preferred = uniform(pages, |a| a.0.preferred, DEVICE_INVALID);
    let prefetched = uniform(pages, |a| a.1, DEVICE_INVALID);
    match attr {
        READ_MOSTLY => int(c_int::from(pages.iter().all(|a| a.0.read_mostly))),
        PREFERRED_LOCATION => int(preferred),
        PREFERRED_LOCATION_TYPE => int(location_of(preferred).0),
        PREFERRED_LOCATION_ID => int(location_of(preferred).1),
        LAST_PREFETCH_LOCATION => int(prefetched),
        LAST_PREFETCH_LOCATION_TYPE => int(location_of(prefetched).0),
        LAST_PREFETCH_LOCATION_ID => int(location_of(prefetched).1),
        ACCESSED_BY => {
            if size == 0 || !size.is_multiple_of(4) {
                return Err(CuError::InvalidValue);
            }
            // The agents every page names, the CPU first, then CU_DEVICE_INVALID.
            let all = pages.iter().fold(u32::MAX, |m, a| m & a.0.accessed_by);
            let agents = (0..32).filter(|b| all & (1 << b) != 0).map(|b| b - 1);
            let mut out = agents.chain(std::iter::repeat(DEVICE_INVALID));
            (0..size / 4).try_for_each(|k| raw::put(data.cast::<c_int>().wrapping_add(k), out.next().unwrap_or(-2)))
        }
        _ => Err(CuError::InvalidValue),
    }
}

/// What the pages of managed memory `[p, p + n)` were advised and prefetched to, as the
/// unified-memory service keeps it (no advice where it keeps none).
fn advice_of(p: CUdeviceptr, n: usize) -> Result<Vec<Advice>> {
    let mut st = state()?;
    let (r, h) = find(&mut st, p, n as u64)?;
    let (d, bytes) = (r.dptr + (h - r.host) as u64, n as u64);
    let first = (h - r.host) as u64 / runtime_core::uvm::PAGE;
    let pages = ((h - r.host) as u64 + bytes.max(1) - 1) / runtime_core::uvm::PAGE - first + 1;
    drop(st);
    let none = (runtime_core::uvm::NO_ADV, DEVICE_INVALID);
    Ok(crate::demand::uvm().range_advice(d, bytes).unwrap_or_else(|| vec![none; pages as usize]))
}

/// cuMemRangeGetAttribute: what the pages of `[p, p + n)` of managed memory were advised
/// and prefetched to.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemRangeGetAttribute(
    data: *mut c_void,
    size: usize,
    attr: c_int,
    p: CUdeviceptr,
    n: usize,
) -> CUresult {
    guard(|| {
        let pages = advice_of(p, n)?;
        range_attribute(data, size, attr, &pages)
    })
}

/// cuMemRangeGetAttributes: cuMemRangeGetAttribute for each of `count` attributes.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemRangeGetAttributes(
    data: *mut *mut c_void,
    sizes: *const usize,
    attrs: *const c_int,
    count: usize,
    p: CUdeviceptr,
    n: usize,
) -> CUresult {
    guard(|| {
        if count == 0 || data.is_null() || sizes.is_null() || attrs.is_null() {
            return Err(CuError::InvalidValue);
        }
        let pages = advice_of(p, n)?;
        for k in 0..count {
            let (d, size, a) =
                (raw::get(data.wrapping_add(k))?, raw::get(sizes.wrapping_add(k))?, raw::get(attrs.wrapping_add(k))?);
            range_attribute(d, size, a, &pages)?;
        }
        Ok(())
    })
}

/// The table `cuGetExportTable` gives for [`hw::export::RGDEV_EXPORT_TABLE_ID`].
#[repr(C)]
pub struct ExportTable {
    /// Bytes of the table.
    pub size: usize,
    /// See [`map_managed_data`].
    pub map_managed_data: extern "C" fn(*mut c_void, usize, *mut CUdeviceptr) -> CUresult,
    /// See [`module_load_placed`].
    pub module_load_placed:
        extern "C" fn(*mut Handle, *const c_void, c_uint, *const *const c_char, *const CUdeviceptr) -> CUresult,
    /// See [`crate::apitrace::nvtx_event`].
    pub nvtx_event: extern "C" fn(u32, *const c_char, u64) -> i64,
}

static EXPORTS: ExportTable = ExportTable {
    size: std::mem::size_of::<ExportTable>(),
    map_managed_data,
    module_load_placed,
    nvtx_event: crate::apitrace::nvtx_event,
};

/// cuGetExportTable: rgdev's own table for its id (hw::export), CUDA_ERROR_INVALID_VALUE
/// for any other.
#[unsafe(no_mangle)]
pub extern "C" fn cuGetExportTable(table: *mut *const c_void, id: *const [u8; 16]) -> CUresult {
    guard(|| {
        if raw::get(id)? != hw::export::RGDEV_EXPORT_TABLE_ID {
            return Err(CuError::InvalidValue);
        }
        raw::put(table, std::ptr::from_ref(&EXPORTS).cast())
    })
}

/// Map the program's pages holding `[p, p + bytes)` into the current context for as long
/// as it lives, at their host address when the context's fixed window has it free
/// (runtime core's `mem_host_map_fixed`); the device address of `p` in `*dptr`. A range
/// already mapped gives the same address. Paged where managed memory is, when the pages
/// sit at their host address.
extern "C" fn map_managed_data(p: *mut c_void, bytes: usize, dptr: *mut CUdeviceptr) -> CUresult {
    guard(|| {
        let (gpu, h) = current()?;
        if let Some(d) = device_of(&*state()?, h, p.addr(), bytes) {
            return raw::put(dptr, d);
        }
        let (mem, off) = raw::host_pages(p, bytes, false)?;
        let host = p.addr() - off;
        let d = gpu.mem_host_map_fixed(h, mem.clone(), host as u64)?;
        // Paged as other managed memory is, where the pages sit at their host address
        // (every context then has them at one address): the write-backs leave the rest of
        // their first and last pages, the program's other data, alone.
        let data = ManagedKind::Data { span: (off as u64, (off + bytes) as u64), at_host: d == host as u64 };
        crate::demand::uvm().add_managed(&gpu, h, d, mem.clone(), data)?;
        let r = Range { ctx: h, host, dptr: d, bytes: mem.len(), kind: Kind::Data, _mem: mem };
        state()?.managed.push(r);
        raw::put(dptr, d + off as u64)
    })
}

/// cuModuleLoadData with the `n` `.global` variables `names` placed at `addrs`.
extern "C" fn module_load_placed(
    module: *mut Handle,
    image: *const c_void,
    n: c_uint,
    names: *const *const c_char,
    addrs: *const CUdeviceptr,
) -> CUresult {
    guard(|| {
        current()?;
        if module.is_null() || (n > 0 && (names.is_null() || addrs.is_null())) {
            return Err(CuError::InvalidValue);
        }
        let mut place = Vec::with_capacity(n as usize);
        for k in 0..n as usize {
            let name = raw::str(raw::get(names.wrapping_add(k))?)?;
            place.push((name, raw::get(addrs.wrapping_add(k))?));
        }
        let image = raw::image(image.cast())?;
        let m = module::load_placed(image, None, &mut String::new(), &mut String::new(), &place)?;
        raw::put(module, handle(m.0))
    })
}
