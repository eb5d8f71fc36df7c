//! cuGetProcAddress: entry points by base name, in the version a caller built against
//! asks for (the legacy unversioned symbols are in `legacy`).
//!
//! A base name (`cuMemAlloc`) resolves to the symbol CUDA's header maps it to for the
//! requested `cudaVersion` (`cuMemAlloc_v2` from CUDA 3.2 on), looked up in this library's
//! own symbol table, so every exported entry point, implemented or not, resolves.
//! Per-thread-default-stream requests get the legacy-stream entry points: rgdev has no
//! per-thread default stream (`_ptds`/`_ptsz` variants), and the legacy stream only
//! synchronizes more, so programs stay correct.

use crate::state::guard;
use crate::{CUresult, raw};
use backend_user::CuError;
use backend_user::Result;
use std::ffi::c_int;
use std::ffi::{c_char, c_void};

/// `CUdriverProcAddress_flags`.
const CU_GET_PROC_ADDRESS_LEGACY_STREAM: u64 = 1;
const CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM: u64 = 2;
/// `CUdriverProcAddressQueryResult`.
const SYMBOL_FOUND: c_int = 0;
const SYMBOL_NOT_FOUND: c_int = 1;

/// Base names whose symbol changed with a CUDA version: (name, [(first cudaVersion, suffix)]),
/// as CUDA's header maps them.
const VERSIONED: &[(&str, &[(c_int, &str)])] = &[
    ("cuDeviceTotalMem", &[(3020, "_v2")]),
    ("cuCtxCreate", &[(3020, "_v2"), (11040, "_v3"), (12050, "_v4")]),
    ("cuCtxDestroy", &[(4000, "_v2")]),
    ("cuCtxPopCurrent", &[(4000, "_v2")]),
    ("cuCtxPushCurrent", &[(4000, "_v2")]),
    ("cuModuleGetGlobal", &[(3020, "_v2")]),
    ("cuMemGetInfo", &[(3020, "_v2")]),
    ("cuMemAlloc", &[(3020, "_v2")]),
    ("cuMemAllocPitch", &[(3020, "_v2")]),
    ("cuMemFree", &[(3020, "_v2")]),
    ("cuMemGetAddressRange", &[(3020, "_v2")]),
    ("cuMemAllocHost", &[(3020, "_v2")]),
    ("cuMemHostGetDevicePointer", &[(3020, "_v2")]),
    ("cuMemcpyHtoD", &[(3020, "_v2")]),
    ("cuMemcpyDtoH", &[(3020, "_v2")]),
    ("cuMemcpyDtoD", &[(3020, "_v2")]),
    ("cuMemcpyDtoA", &[(3020, "_v2")]),
    ("cuMemcpyAtoD", &[(3020, "_v2")]),
    ("cuMemcpyHtoA", &[(3020, "_v2")]),
    ("cuMemcpyAtoH", &[(3020, "_v2")]),
    ("cuMemcpyAtoA", &[(3020, "_v2")]),
    ("cuMemcpyHtoAAsync", &[(3020, "_v2")]),
    ("cuMemcpyAtoHAsync", &[(3020, "_v2")]),
    ("cuMemcpy2D", &[(3020, "_v2")]),
    ("cuMemcpy2DUnaligned", &[(3020, "_v2")]),
    ("cuMemcpy3D", &[(3020, "_v2")]),
    ("cuMemcpyHtoDAsync", &[(3020, "_v2")]),
    ("cuMemcpyDtoHAsync", &[(3020, "_v2")]),
    ("cuMemcpyDtoDAsync", &[(3020, "_v2")]),
    ("cuMemcpy2DAsync", &[(3020, "_v2")]),
    ("cuMemcpy3DAsync", &[(3020, "_v2")]),
    ("cuMemsetD8", &[(3020, "_v2")]),
    ("cuMemsetD16", &[(3020, "_v2")]),
    ("cuMemsetD32", &[(3020, "_v2")]),
    ("cuMemsetD2D8", &[(3020, "_v2")]),
    ("cuMemsetD2D16", &[(3020, "_v2")]),
    ("cuMemsetD2D32", &[(3020, "_v2")]),
    ("cuArrayCreate", &[(3020, "_v2")]),
    ("cuArrayGetDescriptor", &[(3020, "_v2")]),
    ("cuArray3DCreate", &[(3020, "_v2")]),
    ("cuArray3DGetDescriptor", &[(3020, "_v2")]),
    ("cuTexRefSetAddress", &[(3020, "_v2")]),
    ("cuTexRefGetAddress", &[(3020, "_v2")]),
    ("cuTexRefSetAddress2D", &[(3020, "_v2"), (4010, "_v3")]),
    ("cuGraphicsResourceGetMappedPointer", &[(3020, "_v2")]),
    ("cuEventDestroy", &[(4000, "_v2")]),
    ("cuStreamDestroy", &[(4000, "_v2")]),
    ("cuLinkCreate", &[(6050, "_v2")]),
    ("cuLinkAddData", &[(6050, "_v2")]),
    ("cuLinkAddFile", &[(6050, "_v2")]),
    ("cuMemHostRegister", &[(6050, "_v2")]),
    ("cuGraphicsResourceSetMapFlags", &[(6050, "_v2")]),
    ("cuStreamBeginCapture", &[(10010, "_v2")]),
    ("cuDevicePrimaryCtxRelease", &[(11000, "_v2")]),
    ("cuDevicePrimaryCtxReset", &[(11000, "_v2")]),
    ("cuDevicePrimaryCtxSetFlags", &[(11000, "_v2")]),
    ("cuIpcOpenMemHandle", &[(11000, "_v2")]),
    ("cuStreamGetCaptureInfo", &[(11030, "_v2"), (12030, "_v3")]),
    ("cuStreamBatchMemOp", &[(11070, "_v2")]),
    ("cuStreamWaitValue32", &[(11070, "_v2")]),
    ("cuStreamWaitValue64", &[(11070, "_v2")]),
    ("cuStreamWriteValue32", &[(11070, "_v2")]),
    ("cuStreamWriteValue64", &[(11070, "_v2")]),
    ("cuDeviceGetUuid", &[(11040, "_v2")]),
    ("cuGetProcAddress", &[(12000, "_v2")]),
    ("cuGraphExecUpdate", &[(12000, "_v2")]),
    ("cuGraphAddKernelNode", &[(12000, "_v2")]),
    ("cuGraphKernelNodeGetParams", &[(12000, "_v2")]),
    ("cuGraphKernelNodeSetParams", &[(12000, "_v2")]),
    ("cuGraphExecKernelNodeSetParams", &[(12000, "_v2")]),
    ("cuMemAdvise", &[(12020, "_v2")]),
    ("cuMemPrefetchAsync", &[(12020, "_v2")]),
    ("cuStreamGetCtx", &[(12050, "_v2")]),
    ("cuEventElapsedTime", &[(12080, "_v2")]),
    ("cuGraphAddNode", &[(12030, "_v2")]),
    ("cuGraphAddDependencies", &[(12030, "_v2")]),
    ("cuGraphRemoveDependencies", &[(12030, "_v2")]),
    ("cuGraphGetEdges", &[(12030, "_v2")]),
    ("cuGraphNodeGetDependencies", &[(12030, "_v2")]),
    ("cuGraphNodeGetDependentNodes", &[(12030, "_v2")]),
    ("cuStreamUpdateCaptureDependencies", &[(12030, "_v2")]),
];

/// The symbol base name `name` means for `version` (the name itself when no version
/// renamed it); `None` for a name that is not a base name (it carries a version or
/// stream suffix).
fn symbol_for(name: &str, version: c_int) -> Option<String> {
    let suffixed = ["_ptds", "_ptsz"].iter().any(|s| name.ends_with(s))
        || name.rsplit_once("_v").is_some_and(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    if suffixed {
        return None;
    }
    let suffix = VERSIONED
        .iter()
        .find(|(n, _)| *n == name)
        .and_then(|(_, vs)| vs.iter().rev().find(|(v, _)| *v <= version))
        .map_or("", |(_, s)| *s);
    Some(format!("{name}{suffix}"))
}

/// The entry point `symbol` means for `version` and `flags`: CUDA_ERROR_INVALID_VALUE for
/// no name or unknown flags, CUDA_ERROR_NOT_FOUND for a name that is no entry point.
fn lookup(symbol: *const c_char, version: c_int, flags: u64) -> Result<*mut c_void> {
    if flags & !(CU_GET_PROC_ADDRESS_LEGACY_STREAM | CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0 {
        return Err(CuError::InvalidValue);
    }
    let name = raw::str(symbol)?;
    let resolved = symbol_for(name, version).ok_or(CuError::NotFound)?;
    raw::own_symbol(&resolved).ok_or(CuError::NotFound)
}

/// cuGetProcAddress_v2 (CUDA 12): the entry point `symbol` (a base name) means for a
/// program built against `cuda_version`; `status` (optional) says whether it was found.
#[unsafe(no_mangle)]
pub extern "C" fn cuGetProcAddress_v2(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    cuda_version: c_int,
    flags: u64,
    status: *mut c_int,
) -> CUresult {
    if pfn.is_null() {
        return CuError::InvalidValue.code() as CUresult;
    }
    let (f, st, r) = match lookup(symbol, cuda_version, flags) {
        Ok(f) => (f, SYMBOL_FOUND, Ok(())),
        Err(e) => (std::ptr::null_mut(), SYMBOL_NOT_FOUND, Err(e)),
    };
    guard(|| {
        raw::put(pfn, f)?;
        if !status.is_null() {
            raw::put(status, st)?;
        }
        r
    })
}

/// cuGetProcAddress (CUDA 11.3's, without the status).
#[unsafe(no_mangle)]
pub extern "C" fn cuGetProcAddress(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    cuda_version: c_int,
    flags: u64,
) -> CUresult {
    cuGetProcAddress_v2(symbol, pfn, cuda_version, flags, std::ptr::null_mut())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_names_resolve_to_the_version_asked_for() {
        assert_eq!(symbol_for("cuMemAlloc", 12000).as_deref(), Some("cuMemAlloc_v2"));
        assert_eq!(symbol_for("cuMemAlloc", 3010).as_deref(), Some("cuMemAlloc"));
        assert_eq!(symbol_for("cuCtxCreate", 11040).as_deref(), Some("cuCtxCreate_v3"));
        assert_eq!(symbol_for("cuCtxCreate", 12090).as_deref(), Some("cuCtxCreate_v4"));
        assert_eq!(symbol_for("cuLaunchKernel", 12090).as_deref(), Some("cuLaunchKernel"));
        assert_eq!(symbol_for("cuMemAlloc_v2", 12000), None);
        assert_eq!(symbol_for("cuMemcpyAsync_ptsz", 12000), None);
    }

    #[test]
    fn the_header_maps_names_as_cuda_version_asks() {
        let header = include_str!("../../include/cuda.h");
        let version: c_int = header
            .lines()
            .find_map(|l| l.strip_prefix("#define CUDA_VERSION "))
            .and_then(|v| v.trim().parse().ok())
            .expect("CUDA_VERSION");
        let mut n = 0;
        for l in header.lines() {
            let Some(rest) = l.strip_prefix("#define cu") else { continue };
            let mut it = rest.split_whitespace();
            let (Some(from), Some(to), None) = (it.next(), it.next(), it.next()) else { continue };
            let from = format!("cu{from}");
            // A rename that is not a version suffix (cuGraphInstantiate) is the header's own;
            // cuCtxCreate stays _v2 in the header while cuGetProcAddress serves _v3 (with
            // execution affinity) from 11.4, as CUDA's table of typedefs has it; likewise
            // cuStreamGetCaptureInfo stays _v2 in CUDA 12.9's header while _v3 (with edge
            // data) is served from 12.3.
            let suffix = to.strip_prefix(&from).and_then(|s| s.strip_prefix("_v"));
            let kept = from == "cuCtxCreate" || from == "cuStreamGetCaptureInfo";
            if suffix.is_some_and(|v| v.bytes().all(|b| b.is_ascii_digit())) && !kept {
                assert_eq!(symbol_for(&from, version).as_deref(), Some(to), "{from}");
                n += 1;
            }
        }
        assert!(n > 60, "{n} mappings");
    }
}
