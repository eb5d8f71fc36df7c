//! Peer access between the GPUs of a system: cuDeviceCanAccessPeer and
//! cuDeviceGetP2PAttribute (from the topology: `SystemConfig::p2p`), cuCtxEnablePeerAccess
//! and cuCtxDisablePeerAccess, cuMemcpyPeer(Async), and copies between unified pointers
//! of different GPUs.
//!
//! Enabling access from context A to context B (on another GPU) points an entry of A's
//! GPU's peer table at B's GPU (entry = B's ordinal) and maps every VRAM allocation of B
//! into A's address space at its own address with peer PTEs; allocations B makes later
//! are mapped as they are made, and unmapped before B frees them. Kernels and copies of A
//! then reach B's memory over the link, timed by its figures. A peer copy between
//! contexts with access runs on a copy engine over the link; without it, it is staged
//! through the host (two PCIe copies), as CUDA does where the GPUs cannot reach each
//! other.

use super::*;

/// Access from context `from` to the memory of context `to` (cuCtxEnablePeerAccess).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Access {
    pub(crate) from: CtxHandle,
    pub(crate) to: CtxHandle,
}

/// `CUdevice_P2PAttribute` values.
const P2P_PERFORMANCE_RANK: c_int = 1;
const P2P_ACCESS_SUPPORTED: c_int = 2;
const P2P_NATIVE_ATOMIC_SUPPORTED: c_int = 3;
const P2P_CUDA_ARRAY_ACCESS_SUPPORTED: c_int = 4;

/// Whether GPU `a` can reach GPU `b`'s memory (different GPUs of one system with a peer
/// path, under unified addressing, which peer mappings need).
fn can_access(st: &State, a: CUdevice, b: CUdevice) -> Result<bool> {
    st.device(a)?;
    st.device(b)?;
    let unified = st.gpus[0].dev.gpu().unified_addressing();
    Ok(unified && st.system.p2p(a as usize, b as usize))
}

/// cuDeviceCanAccessPeer: 1 where the topology gives the pair a peer path (NVLink, or
/// PCIe under one CPU's host bridge); never a device to itself.
#[unsafe(no_mangle)]
pub extern "C" fn cuDeviceCanAccessPeer(can: *mut c_int, dev: CUdevice, peer: CUdevice) -> CUresult {
    guard(|| {
        let ok = can_access(&*state()?, dev, peer)?;
        raw::put(can, c_int::from(ok))
    })
}

/// cuDeviceGetP2PAttribute: from the topology. Performance rank: 0 for the best path of
/// the system, larger for slower ones (NVLink pairs by link count, then PCIe); native
/// atomics over NVLink only; arrays are not reachable from a peer.
#[unsafe(no_mangle)]
pub extern "C" fn cuDeviceGetP2PAttribute(value: *mut c_int, attr: c_int, src: CUdevice, dst: CUdevice) -> CUresult {
    use fake_pci::system::Path;
    guard(|| {
        let st = state()?;
        let ok = can_access(&st, src, dst)?;
        if src == dst {
            return Err(CuError::InvalidDevice);
        }
        let path = st.system.path(src as usize, dst as usize);
        // The most NVLinks any pair of the system has: that pair ranks 0.
        let n = st.system.len();
        let most = (0..n).flat_map(|a| (0..n).map(move |b| (a, b))).map(|(a, b)| st.system.nvlinks(a, b)).max();
        let most = most.unwrap_or(0) as c_int;
        let v = match attr {
            P2P_PERFORMANCE_RANK if !ok => 0,
            P2P_PERFORMANCE_RANK => match path {
                Path::NvLink(k) => most - k as c_int,
                Path::Pix => most + 1,
                _ => most + 2,
            },
            P2P_ACCESS_SUPPORTED => c_int::from(ok),
            P2P_NATIVE_ATOMIC_SUPPORTED => c_int::from(ok && matches!(path, Path::NvLink(_))),
            P2P_CUDA_ARRAY_ACCESS_SUPPORTED => 0,
            _ => return Err(CuError::InvalidValue),
        };
        drop(st);
        raw::put(value, v)
    })
}

/// Map the VRAM allocation at `va` of context `to` (`phys`, `bytes`) into context `from`.
fn map_one(st: &State, a: Access, (va, phys, bytes): (u64, u64, u64)) -> Result<()> {
    let slot = device_of(a.to) as u8;
    st.gpu_of(a.from.0).mem_map_peer(a.from, va, phys, bytes, slot)
}

/// cuCtxEnablePeerAccess: the current context may reach `peer`'s memory, now and what it
/// allocates later; `flags` must be 0.
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxEnablePeerAccess(peer: Handle, flags: c_uint) -> CUresult {
    guard(|| {
        let (gpu, from) = current()?;
        let to = crate::context::check_ctx(peer)?;
        if flags != 0 {
            return Err(CuError::InvalidValue);
        }
        let (a, b) = (device_of(from), device_of(to));
        if a == b {
            return Err(CuError::InvalidDevice);
        }
        let mut st = state()?;
        if !can_access(&st, a, b)? {
            return Err(CuError::PeerAccessUnsupported);
        }
        let access = Access { from, to };
        if st.peers.contains(&access) {
            return Err(CuError::PeerAccessAlreadyEnabled);
        }
        if b as usize >= hw::mmu::PEERS {
            return Err(CuError::TooManyPeers);
        }
        gpu.peer_set(b as u8, Some(st.system.routing_id(b as usize)))?;
        let allocs = st.gpu_of(to.0).mem_user_vram(to)?;
        for (i, &m) in allocs.iter().enumerate() {
            if let Err(e) = map_one(&st, access, m) {
                for &(va, ..) in &allocs[..i] {
                    let _ = gpu.mem_unmap_foreign(from, va);
                }
                return Err(e);
            }
        }
        st.peers.push(access);
        Ok(())
    })
}

/// cuCtxDisablePeerAccess: undo cuCtxEnablePeerAccess (after the current context's work).
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxDisablePeerAccess(peer: Handle) -> CUresult {
    guard(|| {
        let (gpu, from) = current()?;
        let to = crate::context::check_ctx(peer)?;
        let access = Access { from, to };
        let mut st = state()?;
        let i = st.peers.iter().position(|&x| x == access).ok_or(CuError::PeerAccessNotEnabled)?;
        st.peers.remove(i);
        let allocs = st.gpu_of(to.0).mem_user_vram(to)?;
        drop(st);
        for (va, ..) in allocs {
            let _ = gpu.mem_unmap_foreign(from, va);
        }
        Ok(())
    })
}

/// Context `h` allocated VRAM at `ptr`: map it into every context with access to `h`.
pub(crate) fn allocated(h: CtxHandle, ptr: u64) -> Result<()> {
    let st = state()?;
    let to_h: Vec<Access> = st.peers.iter().filter(|a| a.to == h).copied().collect();
    if to_h.is_empty() {
        return Ok(());
    }
    let Some(m) = st.gpu_of(h.0).mem_user_vram(h)?.into_iter().find(|m| m.0 == ptr) else { return Ok(()) };
    for a in to_h {
        map_one(&st, a, m)?;
    }
    Ok(())
}

/// Context `h` is about to free `ptr`: unmap it from every context with access to `h`
/// (each after its work).
pub(crate) fn freeing(h: CtxHandle, ptr: u64) {
    let Ok(st) = state() else { return };
    let from: Vec<(Arc<UserGpu>, CtxHandle)> =
        st.peers.iter().filter(|a| a.to == h).map(|a| (st.gpu_of(a.from.0), a.from)).collect();
    drop(st);
    for (gpu, f) in from {
        let _ = gpu.mem_unmap_foreign(f, ptr);
    }
}

/// Context `h` is going: forget its accesses, and take its memory out of the contexts
/// that reached it; returns what to unmap (after the lock is dropped).
pub(crate) fn forget(st: &mut State, h: CtxHandle) -> Vec<(Arc<UserGpu>, CtxHandle, u64)> {
    let mut unmap = Vec::new();
    let allocs = st.gpu_of(h.0).mem_user_vram(h).unwrap_or_default();
    for a in st.peers.iter().filter(|a| a.to == h) {
        let gpu = st.gpu_of(a.from.0);
        unmap.extend(allocs.iter().map(|&(va, ..)| (gpu.clone(), a.from, va)));
    }
    st.peers.retain(|a| a.from != h && a.to != h);
    unmap
}

/// The context whose device memory `ptr` is, on any GPU (unified addressing): a VRAM
/// allocation or VMM mapping, not pinned host or managed memory.
pub(crate) fn device_owner(ptr: u64) -> Option<CtxHandle> {
    pointer::owner(&*state().ok()?, ptr).and_then(|(ctx, host)| (!host).then_some(ctx))
}

/// Whether context `from` has access to `to`'s memory.
fn enabled(from: CtxHandle, to: CtxHandle) -> Result<bool> {
    Ok(state()?.peers.contains(&Access { from, to }))
}

/// Copy `bytes` from `src` (device memory of context `sc`) to `dst` (of context `dc`).
/// Contexts of one GPU copy as cuMemcpyDtoD does; with peer access either way, the copy
/// engine of the side with access moves the data over the link, on `stream` (of that
/// side's context) when one is given, else on its default stream, waiting when
/// `!asynchronous`; otherwise the data is staged through the host, synchronously.
pub(crate) fn copy(
    (dst, dc): (u64, CtxHandle),
    (src, sc): (u64, CtxHandle),
    bytes: usize,
    stream: Option<(CtxHandle, StreamHandle)>,
    asynchronous: bool,
) -> Result<()> {
    let n = bytes as u64;
    let on = |h: CtxHandle| -> Result<()> {
        let gpu = gpu_of(h.0)?;
        // On the stream when it is this side's; else in its order, synchronously.
        let (sh, wait) = match stream {
            Some((c, s)) if c == h => (s, !asynchronous),
            Some((c, s)) => {
                gpu_of(c.0)?.stream_synchronize(c, s)?;
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
    if device_of(dc) == device_of(sc) {
        return on(dc);
    }
    // The stream's side first, then whichever side has access.
    let order = match stream {
        Some((h, _)) if h == sc => [sc, dc],
        _ => [dc, sc],
    };
    for h in order {
        let other = if h == dc { sc } else { dc };
        if enabled(h, other)? {
            return on(h);
        }
    }
    // No peer path in use: through the host. Each side's work before the copy first.
    if let Some((h, s)) = stream {
        gpu_of(h.0)?.stream_synchronize(h, s)?;
    }
    let (sg, dg) = (gpu_of(sc.0)?, gpu_of(dc.0)?);
    let mut staging = vec![0u8; bytes];
    sg.memcpy_dtoh(sc, &mut staging, src)?;
    dg.memcpy_htod(dc, dst, &staging)
}

/// cuMemcpyPeer: `bytes` from `src` in context `sc` to `dst` in context `dc`; returns
/// when the copy is done.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpyPeer(dst: CUdeviceptr, dc: Handle, src: CUdeviceptr, sc: Handle, bytes: usize) -> CUresult {
    apitrace::call("cuMemcpyPeer", None, || {
        guard(|| {
            let (dc, sc) = (crate::context::check_ctx(dc)?, crate::context::check_ctx(sc)?);
            apitrace::note_kinds(|| ("device", "device"));
            copy((dst, dc), (src, sc), bytes, None, false)?;
            memory::count_copy(bytes);
            Ok(())
        })
    })
}

/// cuMemcpyPeerAsync: as cuMemcpyPeer, on `stream` (NULL: the current context's default
/// stream); asynchronous where a peer path is in use, else staged synchronously.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpyPeerAsync(
    dst: CUdeviceptr,
    dc: Handle,
    src: CUdeviceptr,
    sc: Handle,
    bytes: usize,
    stream: Handle,
) -> CUresult {
    apitrace::call("cuMemcpyPeerAsync", Some(stream), || {
        guard(|| {
            let (dc, sc) = (crate::context::check_ctx(dc)?, crate::context::check_ctx(sc)?);
            let (_, h, sh) = stream_of(stream)?;
            apitrace::note_kinds(|| ("device", "device"));
            copy((dst, dc), (src, sc), bytes, Some((h, sh)), true)?;
            memory::count_copy(bytes);
            Ok(())
        })
    })
}
