//! Peer access between the GPUs of a system, as the C ABI reaches it:
//! cuDeviceCanAccessPeer and cuDeviceGetP2PAttribute (from the topology:
//! `SystemConfig::p2p`), cuCtxEnablePeerAccess and cuCtxDisablePeerAccess,
//! cuMemcpyPeer(Async), and copies between unified pointers of different GPUs. The policy
//! (the accesses, their mappings, how a copy between GPUs goes) is runtime-core's
//! `system::Peers`, the system's (`backend_user::System::peers`), set by cuInit.

use crate::state::{State, current, guard, state};
use crate::{CUdevice, CUdeviceptr, CUresult, Handle, apitrace, memory, pointer, raw, stream_of};
use backend_user::CtxHandle;
use backend_user::CuError;
use backend_user::Result;
use backend_user::UserPeers;
use std::ffi::c_int;
use std::ffi::c_uint;
use std::sync::Arc;
use std::sync::OnceLock;

static PEERS: OnceLock<Arc<UserPeers>> = OnceLock::new();

/// The system's peer accesses (cuInit's), set once.
pub(crate) fn set(p: Arc<UserPeers>) {
    let _ = PEERS.set(p);
}

/// The system's peer accesses: before cuInit, a table with no GPUs (nothing reachable).
pub(crate) fn peers() -> &'static UserPeers {
    PEERS.get_or_init(|| Arc::new(UserPeers::default()))
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
    Ok(peers().can_access(a as usize, b as usize))
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

/// cuCtxEnablePeerAccess: the current context may reach `peer`'s memory, now and what it
/// allocates later; `flags` must be 0.
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxEnablePeerAccess(peer: Handle, flags: c_uint) -> CUresult {
    guard(|| {
        let (_, from) = current()?;
        let to = crate::context::check_ctx(peer)?;
        if flags != 0 {
            return Err(CuError::InvalidValue);
        }
        peers().enable(from, to)
    })
}

/// cuCtxDisablePeerAccess: undo cuCtxEnablePeerAccess (after the current context's work).
#[unsafe(no_mangle)]
pub extern "C" fn cuCtxDisablePeerAccess(peer: Handle) -> CUresult {
    guard(|| {
        let (_, from) = current()?;
        let to = crate::context::check_ctx(peer)?;
        peers().disable(from, to)
    })
}

/// The context whose device memory `ptr` is, on any GPU (unified addressing): a VRAM
/// allocation or VMM mapping, not pinned host or managed memory.
pub(crate) fn device_owner(ptr: u64) -> Option<CtxHandle> {
    pointer::owner(&*state().ok()?, ptr).and_then(|(ctx, host)| (!host).then_some(ctx))
}

/// cuMemcpyPeer: `bytes` from `src` in context `sc` to `dst` in context `dc`; returns
/// when the copy is done.
#[unsafe(no_mangle)]
pub extern "C" fn cuMemcpyPeer(dst: CUdeviceptr, dc: Handle, src: CUdeviceptr, sc: Handle, bytes: usize) -> CUresult {
    apitrace::call("cuMemcpyPeer", None, || {
        guard(|| {
            let (dc, sc) = (crate::context::check_ctx(dc)?, crate::context::check_ctx(sc)?);
            apitrace::note_kinds(|| ("device", "device"));
            peers().copy((dst, dc), (src, sc), bytes, None, false)?;
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
            peers().copy((dst, dc), (src, sc), bytes, Some((h, sh)), true)?;
            memory::count_copy(bytes);
            Ok(())
        })
    })
}
