//! Peer access between the GPUs of a system. Enabling access from context A to context B
//! (on another GPU) points an entry of A's GPU's peer table at B's GPU (entry = B's
//! ordinal, the value its PCI routing id) and maps every VRAM allocation of B into A's
//! address space at its own address with peer PTEs; allocations B makes later are mapped
//! as they are made ([`Peers::allocated`]), and unmapped before B frees them
//! ([`Peers::freeing`]). Kernels and copies of A then reach B's memory over the link. A copy
//! between contexts with access runs on a copy engine over the link; without it, it is
//! staged through the host (two PCIe copies), as CUDA does where the GPUs cannot reach each
//! other ([`Peers::copy`]).

use crate::api::{CtxHandle, StreamHandle, ordinal_of};
use crate::error::{CuError, Result};
use crate::logical::LogicalGpu;
use crate::platform::Platform;
use alloc::sync::{Arc, Weak};
use alloc::vec;
use alloc::vec::Vec;
use lock_api::Mutex;

/// Access from context `from` to the memory of context `to` (cuCtxEnablePeerAccess).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// The context that reaches.
    pub from: CtxHandle,
    /// The context whose memory it reaches.
    pub to: CtxHandle,
}

/// The peer accesses of a system's contexts.
pub struct Peers<P: Platform> {
    /// The GPUs by ordinal.
    gpus: spin::Once<Vec<Weak<LogicalGpu<P>>>>,
    /// `reach[a][b]`: GPU `b`'s PCI routing id where the topology gives `a` a peer path to
    /// `b` (NVLink, or PCIe under one host bridge).
    reach: spin::Once<Vec<Vec<Option<u16>>>>,
    /// The accesses enabled, in order.
    access: Mutex<P::RawMutex, Vec<Access>>,
}

impl<P: Platform> Default for Peers<P> {
    fn default() -> Self {
        Self { gpus: spin::Once::new(), reach: spin::Once::new(), access: Mutex::new(Vec::new()) }
    }
}

impl<P: Platform> Peers<P> {
    /// The system's GPUs by ordinal, and which reach which (`reach[a][b]`: `b`'s routing
    /// id where `a` has a peer path to it). Set once.
    pub fn set_gpus(&self, gpus: Vec<Weak<LogicalGpu<P>>>, reach: Vec<Vec<Option<u16>>>) {
        self.gpus.call_once(|| gpus);
        self.reach.call_once(|| reach);
    }

    /// GPU `i`, while it is there.
    fn gpu(&self, i: usize) -> Result<Arc<LogicalGpu<P>>> {
        self.gpus.get().and_then(|g| g.get(i)).and_then(Weak::upgrade).ok_or(CuError::InvalidDevice)
    }

    /// The GPU of context `h`.
    fn gpu_of(&self, h: CtxHandle) -> Result<Arc<LogicalGpu<P>>> {
        self.gpu(ordinal_of(h.0) as usize)
    }

    /// GPU `b`'s routing id where GPU `a` may reach it: different GPUs with a peer path,
    /// under unified addressing (which peer mappings need).
    fn route(&self, a: usize, b: usize) -> Option<u16> {
        let r = self.reach.get()?.get(a)?.get(b).copied().flatten()?;
        (a != b && self.gpu(a).ok()?.unified_addressing()).then_some(r)
    }

    /// cuDeviceCanAccessPeer: whether GPU `a` can reach GPU `b`'s memory.
    pub fn can_access(&self, a: usize, b: usize) -> bool {
        self.route(a, b).is_some()
    }

    /// Whether context `from` has access to `to`'s memory.
    pub fn enabled(&self, from: CtxHandle, to: CtxHandle) -> bool {
        self.access.lock().contains(&Access { from, to })
    }

    /// Map the VRAM allocation `(va, phys, bytes)` of context `a.to` into context `a.from`.
    fn map_one(&self, a: Access, (va, phys, bytes): (u64, u64, u64)) -> Result<()> {
        let slot = ordinal_of(a.to.0) as u8;
        self.gpu_of(a.from)?.mem_map_peer(a.from, va, phys, bytes, slot)
    }

    /// cuCtxEnablePeerAccess: context `from` may reach `to`'s memory, now and what it
    /// allocates later. INVALID_DEVICE for contexts of one GPU, PEER_ACCESS_UNSUPPORTED
    /// where the GPUs have no peer path, PEER_ACCESS_ALREADY_ENABLED, TOO_MANY_PEERS past
    /// the peer table.
    pub fn enable(&self, from: CtxHandle, to: CtxHandle) -> Result<()> {
        let (a, b) = (ordinal_of(from.0) as usize, ordinal_of(to.0) as usize);
        if a == b {
            return Err(CuError::InvalidDevice);
        }
        let rid = self.route(a, b).ok_or(CuError::PeerAccessUnsupported)?;
        let mut list = self.access.lock();
        let access = Access { from, to };
        if list.contains(&access) {
            return Err(CuError::PeerAccessAlreadyEnabled);
        }
        if b >= hw::mmu::PEERS {
            return Err(CuError::TooManyPeers);
        }
        let gpu = self.gpu(a)?;
        gpu.peer_set(b as u8, Some(rid))?;
        let allocs = self.gpu(b)?.mem_user_vram(to)?;
        for (i, &m) in allocs.iter().enumerate() {
            if let Err(e) = self.map_one(access, m) {
                for &(va, ..) in &allocs[..i] {
                    let _ = gpu.mem_unmap_foreign(from, va);
                }
                return Err(e);
            }
        }
        list.push(access);
        Ok(())
    }

    /// cuCtxDisablePeerAccess: undo [`Peers::enable`] (each unmapping after `from`'s work).
    /// PEER_ACCESS_NOT_ENABLED where it was not.
    pub fn disable(&self, from: CtxHandle, to: CtxHandle) -> Result<()> {
        let access = Access { from, to };
        {
            let mut list = self.access.lock();
            let i = list.iter().position(|&x| x == access).ok_or(CuError::PeerAccessNotEnabled)?;
            list.remove(i);
        }
        let gpu = self.gpu_of(from)?;
        for (va, ..) in self.gpu_of(to)?.mem_user_vram(to)? {
            let _ = gpu.mem_unmap_foreign(from, va);
        }
        Ok(())
    }

    /// Context `h` allocated VRAM at `ptr`: map it into every context with access to `h`.
    pub fn allocated(&self, h: CtxHandle, ptr: u64) -> Result<()> {
        let to_h: Vec<Access> = self.access.lock().iter().filter(|a| a.to == h).copied().collect();
        if to_h.is_empty() {
            return Ok(());
        }
        let Some(m) = self.gpu_of(h)?.mem_user_vram(h)?.into_iter().find(|m| m.0 == ptr) else { return Ok(()) };
        for a in to_h {
            self.map_one(a, m)?;
        }
        Ok(())
    }

    /// Context `h` is about to free `ptr`: unmap it from every context with access to `h`
    /// (each after its work).
    pub fn freeing(&self, h: CtxHandle, ptr: u64) {
        let from: Vec<CtxHandle> = self.access.lock().iter().filter(|a| a.to == h).map(|a| a.from).collect();
        for f in from {
            if let Ok(gpu) = self.gpu_of(f) {
                let _ = gpu.mem_unmap_foreign(f, ptr);
            }
        }
    }

    /// Context `h` is going: forget its accesses, and take its memory out of the contexts
    /// that reached it.
    pub fn forget(&self, h: CtxHandle) {
        let allocs = self.gpu_of(h).and_then(|g| g.mem_user_vram(h)).unwrap_or_default();
        let from: Vec<CtxHandle> = {
            let mut list = self.access.lock();
            let from = list.iter().filter(|a| a.to == h).map(|a| a.from).collect();
            list.retain(|a| a.from != h && a.to != h);
            from
        };
        for f in from {
            if let Ok(gpu) = self.gpu_of(f) {
                for &(va, ..) in &allocs {
                    let _ = gpu.mem_unmap_foreign(f, va);
                }
            }
        }
    }

    /// Copy `bytes` from `src` (device memory of context `sc`) to `dst` (of context `dc`).
    /// Contexts of one GPU copy as cuMemcpyDtoD does; with peer access either way, the copy
    /// engine of the side with access moves the data over the link, on `stream` (of that
    /// side's context) when one is given, else on its default stream, waiting when
    /// `!asynchronous`; otherwise the data is staged through the host, synchronously.
    pub fn copy(
        &self,
        (dst, dc): (u64, CtxHandle),
        (src, sc): (u64, CtxHandle),
        bytes: usize,
        stream: Option<(CtxHandle, StreamHandle)>,
        asynchronous: bool,
    ) -> Result<()> {
        let n = bytes as u64;
        let on = |h: CtxHandle| -> Result<()> {
            let gpu = self.gpu_of(h)?;
            // On the stream when it is this side's; else in its order, synchronously.
            let (sh, wait) = match stream {
                Some((c, s)) if c == h => (s, !asynchronous),
                Some((c, s)) => {
                    self.gpu_of(c)?.stream_synchronize(c, s)?;
                    (StreamHandle::DEFAULT, true)
                }
                None => (StreamHandle::DEFAULT, !asynchronous),
            };
            let f = gpu.memcpy(h, sh, dst, src, n)?;
            if wait && n > 0 {
                gpu.fence_wait(h, f)?;
            }
            Ok(())
        };
        if ordinal_of(dc.0) == ordinal_of(sc.0) {
            return on(dc);
        }
        // The stream's side first, then whichever side has access.
        let order = match stream {
            Some((h, _)) if h == sc => [sc, dc],
            _ => [dc, sc],
        };
        for h in order {
            let other = if h == dc { sc } else { dc };
            if self.enabled(h, other) {
                return on(h);
            }
        }
        // No peer path in use: through the host. Each side's work before the copy first.
        if let Some((h, s)) = stream {
            self.gpu_of(h)?.stream_synchronize(h, s)?;
        }
        let (sg, dg) = (self.gpu_of(sc)?, self.gpu_of(dc)?);
        let mut staging = vec![0u8; bytes];
        sg.memcpy_dtoh(sc, &mut staging, src)?;
        dg.memcpy_htod(dc, dst, &staging)
    }
}
