//! Physical allocations of the virtual memory management API (cuMemCreate): VRAM that
//! belongs to no address space until it is mapped. Each is named by a handle and freed
//! when its last handle reference (cuMemCreate, cuMemRetainAllocationHandle) has been
//! released and its last mapping undone, as CUDA documents for cuMemRelease and
//! cuMemUnmap. The table is the device's: any context may map a handle.

use crate::device::Device;
use crate::error::{CuError, Result};
use crate::platform::Platform;
use alloc::collections::BTreeMap;
use hw::mmu::PAGE_SIZE;

/// Handles carry this tag in their top byte, so that a small integer or a device pointer
/// passed as a handle is refused rather than taken for one.
const TAG: u64 = 0xc3 << 56;

/// One physical allocation.
struct Phys {
    /// VRAM address.
    addr: u64,
    bytes: u64,
    /// References held by the program (cuMemCreate, cuMemRetainAllocationHandle).
    handles: u32,
    /// Mappings of it in any context.
    maps: u32,
}

/// The device's physical allocations by handle.
#[derive(Default)]
pub(crate) struct PhysTable {
    by_handle: BTreeMap<u64, Phys>,
    next: u64,
}

impl<P: Platform> Device<P> {
    /// Allocate `bytes` (a non-zero multiple of pages) of VRAM as a physical allocation;
    /// returns its handle, holding one handle reference.
    pub(crate) fn phys_create(&self, bytes: u64) -> Result<u64> {
        if bytes == 0 || !bytes.is_multiple_of(PAGE_SIZE) {
            return Err(CuError::InvalidValue);
        }
        let addr = self.vram_alloc(bytes, PAGE_SIZE)?;
        let mut st = self.state.lock();
        let t = &mut st.phys;
        t.next += 1;
        let h = TAG | t.next;
        t.by_handle.insert(h, Phys { addr, bytes, handles: 1, maps: 0 });
        Ok(h)
    }

    /// The VRAM address and size of allocation `h`.
    pub(crate) fn phys_of(&self, h: u64) -> Result<(u64, u64)> {
        let st = self.state.lock();
        st.phys.by_handle.get(&h).map(|p| (p.addr, p.bytes)).ok_or(CuError::InvalidValue)
    }

    /// Take a handle reference (cuMemRetainAllocationHandle on a mapped address).
    pub(crate) fn phys_retain(&self, h: u64) -> Result<()> {
        self.phys_adjust(h, |p| p.handles = p.handles.saturating_add(1))
    }

    /// Drop a handle reference (cuMemRelease); INVALID_VALUE when the program holds none.
    pub(crate) fn phys_release(&self, h: u64) -> Result<()> {
        let mut held = true;
        self.phys_adjust(h, |p| match p.handles.checked_sub(1) {
            Some(n) => p.handles = n,
            None => held = false,
        })?;
        if held { Ok(()) } else { Err(CuError::InvalidValue) }
    }

    /// Count a new mapping of `h`.
    pub(crate) fn phys_map(&self, h: u64) -> Result<()> {
        self.phys_adjust(h, |p| p.maps += 1)
    }

    /// Count a mapping of `h` undone.
    pub(crate) fn phys_unmap(&self, h: u64) {
        let _ = self.phys_adjust(h, |p| p.maps = p.maps.saturating_sub(1));
    }

    /// Change allocation `h`'s counts, freeing it when both reach zero.
    fn phys_adjust(&self, h: u64, f: impl FnOnce(&mut Phys)) -> Result<()> {
        let mut st = self.state.lock();
        let p = st.phys.by_handle.get_mut(&h).ok_or(CuError::InvalidValue)?;
        f(p);
        if p.handles == 0 && p.maps == 0 {
            let (addr, bytes) = (p.addr, p.bytes);
            st.phys.by_handle.remove(&h);
            st.vram.free(addr, bytes);
        }
        Ok(())
    }
}
