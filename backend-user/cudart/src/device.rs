//! Device management: counting and choosing devices, their properties and attributes,
//! flags, synchronization and reset; errors and versions.

use crate::error::{self, Status, codes::*};
use crate::{api, put, state};
use std::ffi::{c_char, c_int, c_uint};

/// The runtime's version: CUDA 12.9, the API level of the headers.
pub const RUNTIME_VERSION: c_int = 12090;

/// `struct cudaDeviceProp` of CUDA 12.9.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Zeroable)]
pub struct DeviceProp {
    /// `name`.
    pub name: [u8; 256],
    /// `uuid`.
    pub uuid: [u8; 16],
    /// `luid`.
    pub luid: [u8; 8],
    /// `luidDeviceNodeMask`.
    pub luidDeviceNodeMask: c_uint,
    /// `totalGlobalMem`.
    pub totalGlobalMem: usize,
    /// `sharedMemPerBlock`.
    pub sharedMemPerBlock: usize,
    /// `regsPerBlock`.
    pub regsPerBlock: c_int,
    /// `warpSize`.
    pub warpSize: c_int,
    /// `memPitch`.
    pub memPitch: usize,
    /// `maxThreadsPerBlock`.
    pub maxThreadsPerBlock: c_int,
    /// `maxThreadsDim`.
    pub maxThreadsDim: [c_int; 3],
    /// `maxGridSize`.
    pub maxGridSize: [c_int; 3],
    /// `clockRate`.
    pub clockRate: c_int,
    /// `totalConstMem`.
    pub totalConstMem: usize,
    /// `major`.
    pub major: c_int,
    /// `minor`.
    pub minor: c_int,
    /// `textureAlignment`.
    pub textureAlignment: usize,
    /// `texturePitchAlignment`.
    pub texturePitchAlignment: usize,
    /// `deviceOverlap`.
    pub deviceOverlap: c_int,
    /// `multiProcessorCount`.
    pub multiProcessorCount: c_int,
    /// `kernelExecTimeoutEnabled`.
    pub kernelExecTimeoutEnabled: c_int,
    /// `integrated`.
    pub integrated: c_int,
    /// `canMapHostMemory`.
    pub canMapHostMemory: c_int,
    /// `computeMode`.
    pub computeMode: c_int,
    /// `maxTexture1D`.
    pub maxTexture1D: c_int,
    /// `maxTexture1DMipmap`.
    pub maxTexture1DMipmap: c_int,
    /// `maxTexture1DLinear`.
    pub maxTexture1DLinear: c_int,
    /// `maxTexture2D`.
    pub maxTexture2D: [c_int; 2],
    /// `maxTexture2DMipmap`.
    pub maxTexture2DMipmap: [c_int; 2],
    /// `maxTexture2DLinear`.
    pub maxTexture2DLinear: [c_int; 3],
    /// `maxTexture2DGather`.
    pub maxTexture2DGather: [c_int; 2],
    /// `maxTexture3D`.
    pub maxTexture3D: [c_int; 3],
    /// `maxTexture3DAlt`.
    pub maxTexture3DAlt: [c_int; 3],
    /// `maxTextureCubemap`.
    pub maxTextureCubemap: c_int,
    /// `maxTexture1DLayered`.
    pub maxTexture1DLayered: [c_int; 2],
    /// `maxTexture2DLayered`.
    pub maxTexture2DLayered: [c_int; 3],
    /// `maxTextureCubemapLayered`.
    pub maxTextureCubemapLayered: [c_int; 2],
    /// `maxSurface1D`.
    pub maxSurface1D: c_int,
    /// `maxSurface2D`.
    pub maxSurface2D: [c_int; 2],
    /// `maxSurface3D`.
    pub maxSurface3D: [c_int; 3],
    /// `maxSurface1DLayered`.
    pub maxSurface1DLayered: [c_int; 2],
    /// `maxSurface2DLayered`.
    pub maxSurface2DLayered: [c_int; 3],
    /// `maxSurfaceCubemap`.
    pub maxSurfaceCubemap: c_int,
    /// `maxSurfaceCubemapLayered`.
    pub maxSurfaceCubemapLayered: [c_int; 2],
    /// `surfaceAlignment`.
    pub surfaceAlignment: usize,
    /// `concurrentKernels`.
    pub concurrentKernels: c_int,
    /// `ECCEnabled`.
    pub ECCEnabled: c_int,
    /// `pciBusID`.
    pub pciBusID: c_int,
    /// `pciDeviceID`.
    pub pciDeviceID: c_int,
    /// `pciDomainID`.
    pub pciDomainID: c_int,
    /// `tccDriver`.
    pub tccDriver: c_int,
    /// `asyncEngineCount`.
    pub asyncEngineCount: c_int,
    /// `unifiedAddressing`.
    pub unifiedAddressing: c_int,
    /// `memoryClockRate`.
    pub memoryClockRate: c_int,
    /// `memoryBusWidth`.
    pub memoryBusWidth: c_int,
    /// `l2CacheSize`.
    pub l2CacheSize: c_int,
    /// `persistingL2CacheMaxSize`.
    pub persistingL2CacheMaxSize: c_int,
    /// `maxThreadsPerMultiProcessor`.
    pub maxThreadsPerMultiProcessor: c_int,
    /// `streamPrioritiesSupported`.
    pub streamPrioritiesSupported: c_int,
    /// `globalL1CacheSupported`.
    pub globalL1CacheSupported: c_int,
    /// `localL1CacheSupported`.
    pub localL1CacheSupported: c_int,
    /// `sharedMemPerMultiprocessor`.
    pub sharedMemPerMultiprocessor: usize,
    /// `regsPerMultiprocessor`.
    pub regsPerMultiprocessor: c_int,
    /// `managedMemory`.
    pub managedMemory: c_int,
    /// `isMultiGpuBoard`.
    pub isMultiGpuBoard: c_int,
    /// `multiGpuBoardGroupID`.
    pub multiGpuBoardGroupID: c_int,
    /// `hostNativeAtomicSupported`.
    pub hostNativeAtomicSupported: c_int,
    /// `singleToDoublePrecisionPerfRatio`.
    pub singleToDoublePrecisionPerfRatio: c_int,
    /// `pageableMemoryAccess`.
    pub pageableMemoryAccess: c_int,
    /// `concurrentManagedAccess`.
    pub concurrentManagedAccess: c_int,
    /// `computePreemptionSupported`.
    pub computePreemptionSupported: c_int,
    /// `canUseHostPointerForRegisteredMem`.
    pub canUseHostPointerForRegisteredMem: c_int,
    /// `cooperativeLaunch`.
    pub cooperativeLaunch: c_int,
    /// `cooperativeMultiDeviceLaunch`.
    pub cooperativeMultiDeviceLaunch: c_int,
    /// `sharedMemPerBlockOptin`.
    pub sharedMemPerBlockOptin: usize,
    /// `pageableMemoryAccessUsesHostPageTables`.
    pub pageableMemoryAccessUsesHostPageTables: c_int,
    /// `directManagedMemAccessFromHost`.
    pub directManagedMemAccessFromHost: c_int,
    /// `maxBlocksPerMultiProcessor`.
    pub maxBlocksPerMultiProcessor: c_int,
    /// `accessPolicyMaxWindowSize`.
    pub accessPolicyMaxWindowSize: c_int,
    /// `reservedSharedMemPerBlock`.
    pub reservedSharedMemPerBlock: usize,
    /// `hostRegisterSupported`.
    pub hostRegisterSupported: c_int,
    /// `sparseCudaArraySupported`.
    pub sparseCudaArraySupported: c_int,
    /// `hostRegisterReadOnlySupported`.
    pub hostRegisterReadOnlySupported: c_int,
    /// `timelineSemaphoreInteropSupported`.
    pub timelineSemaphoreInteropSupported: c_int,
    /// `memoryPoolsSupported`.
    pub memoryPoolsSupported: c_int,
    /// `gpuDirectRDMASupported`.
    pub gpuDirectRDMASupported: c_int,
    /// `gpuDirectRDMAFlushWritesOptions`.
    pub gpuDirectRDMAFlushWritesOptions: c_uint,
    /// `gpuDirectRDMAWritesOrdering`.
    pub gpuDirectRDMAWritesOrdering: c_int,
    /// `memoryPoolSupportedHandleTypes`.
    pub memoryPoolSupportedHandleTypes: c_uint,
    /// `deferredMappingCudaArraySupported`.
    pub deferredMappingCudaArraySupported: c_int,
    /// `ipcEventSupported`.
    pub ipcEventSupported: c_int,
    /// `clusterLaunch`.
    pub clusterLaunch: c_int,
    /// `unifiedFunctionPointers`.
    pub unifiedFunctionPointers: c_int,
    /// `reserved`.
    pub reserved: [c_int; 63],
}

/// `cudaGetLastError`: the thread's last error, which it clears.
#[unsafe(no_mangle)]
pub extern "C" fn cudaGetLastError() -> Status {
    error::last(true)
}

/// `cudaPeekAtLastError`: the thread's last error, kept.
#[unsafe(no_mangle)]
pub extern "C" fn cudaPeekAtLastError() -> Status {
    error::last(false)
}

/// `cudaGetErrorName`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaGetErrorName(e: Status) -> *const c_char {
    error::name(e).as_ptr()
}

/// `cudaGetErrorString`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaGetErrorString(e: Status) -> *const c_char {
    error::describe(e)
}

/// `cudaRuntimeGetVersion`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaRuntimeGetVersion(v: *mut c_int) -> Status {
    api(|| put(v, RUNTIME_VERSION))
}

/// `cudaDriverGetVersion`: 0 without a driver, as CUDA reports.
#[unsafe(no_mangle)]
pub extern "C" fn cudaDriverGetVersion(v: *mut c_int) -> Status {
    api(|| {
        let mut n = 0;
        if let Ok(d) = crate::driver::get() {
            error::check(d.cuDriverGetVersion(&mut n))?;
        }
        put(v, n)
    })
}

/// `cudaGetDeviceCount`: cudaErrorNoDevice when there is none.
#[unsafe(no_mangle)]
pub extern "C" fn cudaGetDeviceCount(n: *mut c_int) -> Status {
    api(|| {
        let d = state::driver()?;
        let mut count = 0;
        error::check(d.cuDeviceGetCount(&mut count))?;
        put(n, count)?;
        if count == 0 { Err(cudaErrorNoDevice) } else { Ok(()) }
    })
}

/// `cudaSetDevice`: the thread's current device, its primary context made current.
#[unsafe(no_mangle)]
pub extern "C" fn cudaSetDevice(dev: c_int) -> Status {
    api(|| state::set_device(dev))
}

/// `cudaGetDevice`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaGetDevice(dev: *mut c_int) -> Status {
    api(|| {
        state::driver()?;
        put(dev, state::device())
    })
}

/// `cudaSetDeviceFlags`: the current device's primary-context flags (scheduling,
/// cudaDeviceMapHost, ...).
#[unsafe(no_mangle)]
pub extern "C" fn cudaSetDeviceFlags(flags: c_uint) -> Status {
    api(|| state::set_flags(flags).map_err(|e| if e == cudaErrorNotSupported { cudaErrorInvalidValue } else { e }))
}

/// `cudaGetDeviceFlags`: the current device's primary-context flags, cudaDeviceMapHost
/// always among them (as in CUDA).
#[unsafe(no_mangle)]
pub extern "C" fn cudaGetDeviceFlags(flags: *mut c_uint) -> Status {
    api(|| {
        let d = state::driver()?;
        let (mut f, mut active) = (0, 0);
        error::check(d.cuDevicePrimaryCtxGetState(state::device(), &mut f, &mut active))?;
        put(flags, f | 0x08)
    })
}

/// `cudaDeviceGetAttribute`: the Driver API's attribute of the same number.
#[unsafe(no_mangle)]
pub extern "C" fn cudaDeviceGetAttribute(v: *mut c_int, attr: c_int, dev: c_int) -> Status {
    api(|| {
        let d = state::driver()?;
        state::valid_device(dev)?;
        let mut x = 0;
        error::check(d.cuDeviceGetAttribute(&mut x, attr, dev))?;
        put(v, x)
    })
}

/// The properties of device `dev`, every field from the driver.
pub fn properties(dev: c_int) -> Result<DeviceProp, Status> {
    let d = state::driver()?;
    state::valid_device(dev)?;
    let at = |a: c_int| -> Result<c_int, Status> {
        let mut x = 0;
        error::check(d.cuDeviceGetAttribute(&mut x, a, dev))?;
        Ok(x)
    };
    let mut p: DeviceProp = bytemuck::Zeroable::zeroed();
    error::check(d.cuDeviceGetName(p.name.as_mut_ptr().cast(), 256, dev))?;
    error::check(d.cuDeviceGetUuid(p.uuid.as_mut_ptr().cast(), dev))?;
    error::check(d.cuDeviceTotalMem(&mut p.totalGlobalMem, dev))?;
    p.sharedMemPerBlock = at(8)? as usize;
    p.regsPerBlock = at(12)?;
    p.warpSize = at(10)?;
    p.memPitch = at(11)? as usize;
    p.maxThreadsPerBlock = at(1)?;
    p.maxThreadsDim = [at(2)?, at(3)?, at(4)?];
    p.maxGridSize = [at(5)?, at(6)?, at(7)?];
    p.clockRate = at(13)?;
    p.totalConstMem = at(9)? as usize;
    p.major = at(75)?;
    p.minor = at(76)?;
    p.textureAlignment = at(14)? as usize;
    p.texturePitchAlignment = at(51)? as usize;
    p.deviceOverlap = at(15)?;
    p.multiProcessorCount = at(16)?;
    p.kernelExecTimeoutEnabled = at(17)?;
    p.integrated = at(18)?;
    p.canMapHostMemory = at(19)?;
    p.computeMode = at(20)?;
    p.maxTexture1D = at(21)?;
    p.maxTexture1DMipmap = at(77)?;
    p.maxTexture1DLinear = at(69)?;
    p.maxTexture2D = [at(22)?, at(23)?];
    p.maxTexture2DMipmap = [at(73)?, at(74)?];
    p.maxTexture2DLinear = [at(70)?, at(71)?, at(72)?];
    p.maxTexture2DGather = [at(45)?, at(46)?];
    p.maxTexture3D = [at(24)?, at(25)?, at(26)?];
    p.maxTexture3DAlt = [at(47)?, at(48)?, at(49)?];
    p.maxTextureCubemap = at(52)?;
    p.maxTexture1DLayered = [at(42)?, at(43)?];
    p.maxTexture2DLayered = [at(27)?, at(28)?, at(29)?];
    p.maxTextureCubemapLayered = [at(53)?, at(54)?];
    p.maxSurface1D = at(55)?;
    p.maxSurface2D = [at(56)?, at(57)?];
    p.maxSurface3D = [at(58)?, at(59)?, at(60)?];
    p.maxSurface1DLayered = [at(61)?, at(62)?];
    p.maxSurface2DLayered = [at(63)?, at(64)?, at(65)?];
    p.maxSurfaceCubemap = at(66)?;
    p.maxSurfaceCubemapLayered = [at(67)?, at(68)?];
    p.surfaceAlignment = at(30)? as usize;
    p.concurrentKernels = at(31)?;
    p.ECCEnabled = at(32)?;
    p.pciBusID = at(33)?;
    p.pciDeviceID = at(34)?;
    p.pciDomainID = at(50)?;
    p.tccDriver = at(35)?;
    p.asyncEngineCount = at(40)?;
    p.unifiedAddressing = at(41)?;
    p.memoryClockRate = at(36)?;
    p.memoryBusWidth = at(37)?;
    p.l2CacheSize = at(38)?;
    p.persistingL2CacheMaxSize = at(108)?;
    p.maxThreadsPerMultiProcessor = at(39)?;
    p.streamPrioritiesSupported = at(78)?;
    p.globalL1CacheSupported = at(79)?;
    p.localL1CacheSupported = at(80)?;
    p.sharedMemPerMultiprocessor = at(81)? as usize;
    p.regsPerMultiprocessor = at(82)?;
    p.managedMemory = at(83)?;
    p.isMultiGpuBoard = at(84)?;
    p.multiGpuBoardGroupID = at(85)?;
    p.hostNativeAtomicSupported = at(86)?;
    p.singleToDoublePrecisionPerfRatio = at(87)?;
    p.pageableMemoryAccess = at(88)?;
    p.concurrentManagedAccess = at(89)?;
    p.computePreemptionSupported = at(90)?;
    p.canUseHostPointerForRegisteredMem = at(91)?;
    p.cooperativeLaunch = at(95)?;
    p.cooperativeMultiDeviceLaunch = at(96)?;
    p.sharedMemPerBlockOptin = at(97)? as usize;
    p.pageableMemoryAccessUsesHostPageTables = at(100)?;
    p.directManagedMemAccessFromHost = at(101)?;
    p.maxBlocksPerMultiProcessor = at(106)?;
    p.accessPolicyMaxWindowSize = at(109)?;
    p.reservedSharedMemPerBlock = at(111)? as usize;
    p.hostRegisterSupported = at(99)?;
    p.sparseCudaArraySupported = at(112)?;
    p.hostRegisterReadOnlySupported = at(113)?;
    p.timelineSemaphoreInteropSupported = at(114)?;
    p.memoryPoolsSupported = at(115)?;
    p.gpuDirectRDMASupported = at(116)?;
    p.gpuDirectRDMAFlushWritesOptions = at(117)? as c_uint;
    p.gpuDirectRDMAWritesOrdering = at(118)?;
    p.memoryPoolSupportedHandleTypes = at(119)? as c_uint;
    p.deferredMappingCudaArraySupported = at(121)?;
    p.ipcEventSupported = at(125)?;
    p.clusterLaunch = at(120)?;
    p.unifiedFunctionPointers = at(129)?;
    Ok(p)
}

/// `cudaGetDeviceProperties_v2` (what CUDA 12's header names cudaGetDeviceProperties).
#[unsafe(no_mangle)]
pub extern "C" fn cudaGetDeviceProperties_v2(prop: *mut DeviceProp, dev: c_int) -> Status {
    api(|| put(prop, properties(dev)?))
}

/// `cudaGetDeviceProperties`: the same, for programs built before CUDA 12's rename (the
/// struct kept its size and layout).
#[unsafe(no_mangle)]
pub extern "C" fn cudaGetDeviceProperties(prop: *mut DeviceProp, dev: c_int) -> Status {
    cudaGetDeviceProperties_v2(prop, dev)
}

/// `cudaDeviceSynchronize`: wait for the current context's work; its errors (a kernel's
/// fault, sticky) are returned.
#[unsafe(no_mangle)]
pub extern "C" fn cudaDeviceSynchronize() -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        error::check(d.cuCtxSynchronize())
    })
}

/// `cudaDeviceSetLimit`: the current device's primary context's limit (cudaLimit values
/// are the driver's CUlimit values).
#[unsafe(no_mangle)]
pub extern "C" fn cudaDeviceSetLimit(limit: c_int, value: usize) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        error::check(d.cuCtxSetLimit(limit, value))
    })
}

/// `cudaDeviceGetLimit`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaDeviceGetLimit(value: *mut usize, limit: c_int) -> Status {
    api(|| {
        let d = state::driver()?;
        state::context()?;
        let mut v = 0usize;
        error::check(d.cuCtxGetLimit(&mut v, limit))?;
        put(value, v)
    })
}

/// `cudaDeviceReset`: destroy the current device's primary context (its memory, streams
/// and modules, and a sticky error with them).
#[unsafe(no_mangle)]
pub extern "C" fn cudaDeviceReset() -> Status {
    api(|| {
        state::reset(state::device())?;
        error::clear();
        Ok(())
    })
}

/// `cudaThreadSynchronize` (deprecated): `cudaDeviceSynchronize`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaThreadSynchronize() -> Status {
    cudaDeviceSynchronize()
}

/// `cudaThreadExit` (deprecated): `cudaDeviceReset`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaThreadExit() -> Status {
    cudaDeviceReset()
}

/// `cudaThreadSetLimit` (deprecated): `cudaDeviceSetLimit`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaThreadSetLimit(limit: c_int, value: usize) -> Status {
    cudaDeviceSetLimit(limit, value)
}

/// `cudaThreadGetLimit` (deprecated): `cudaDeviceGetLimit`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaThreadGetLimit(value: *mut usize, limit: c_int) -> Status {
    cudaDeviceGetLimit(value, limit)
}

/// `cudaFuncCache` values: PreferNone, PreferShared, PreferL1, PreferEqual.
pub(crate) const CACHE_CONFIGS: std::ops::RangeInclusive<c_int> = 0..=3;
/// `cudaSharedMemConfig` values: Default, FourByte, EightByte.
pub(crate) const SHMEM_CONFIGS: std::ops::RangeInclusive<c_int> = 0..=2;

/// Set the current device's preferences (cache, bank size); `None` keeps one.
fn set_prefs(cache: Option<c_int>, shmem: Option<c_int>) -> Result<(), Status> {
    state::driver()?;
    let dev = state::device();
    state::valid_device(dev)?;
    if cache.is_some_and(|c| !CACHE_CONFIGS.contains(&c)) || shmem.is_some_and(|s| !SHMEM_CONFIGS.contains(&s)) {
        return Err(cudaErrorInvalidValue);
    }
    let mut r = state::registry();
    let e = r.device_prefs.entry(dev).or_insert((0, 0));
    if let Some(c) = cache {
        e.0 = c;
    }
    if let Some(s) = shmem {
        e.1 = s;
    }
    Ok(())
}

fn prefs() -> Result<(c_int, c_int), Status> {
    state::driver()?;
    let dev = state::device();
    state::valid_device(dev)?;
    Ok(state::registry().device_prefs.get(&dev).copied().unwrap_or((0, 0)))
}

/// `cudaDeviceSetCacheConfig`: the L1/shared preference (CUDA: "only a preference"; the
/// model's L1 and shared memory sizes come from the preset, so it is kept, not applied).
#[unsafe(no_mangle)]
pub extern "C" fn cudaDeviceSetCacheConfig(config: c_int) -> Status {
    api(|| set_prefs(Some(config), None))
}

/// `cudaDeviceGetCacheConfig`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaDeviceGetCacheConfig(config: *mut c_int) -> Status {
    api(|| put(config, prefs()?.0))
}

/// `cudaThreadSetCacheConfig` (deprecated).
#[unsafe(no_mangle)]
pub extern "C" fn cudaThreadSetCacheConfig(config: c_int) -> Status {
    cudaDeviceSetCacheConfig(config)
}

/// `cudaThreadGetCacheConfig` (deprecated).
#[unsafe(no_mangle)]
pub extern "C" fn cudaThreadGetCacheConfig(config: *mut c_int) -> Status {
    cudaDeviceGetCacheConfig(config)
}

/// `cudaDeviceSetSharedMemConfig`: the bank-size preference (kept; the model's banks
/// are 4 bytes wide).
#[unsafe(no_mangle)]
pub extern "C" fn cudaDeviceSetSharedMemConfig(config: c_int) -> Status {
    api(|| set_prefs(None, Some(config)))
}

/// `cudaDeviceGetSharedMemConfig`: cudaSharedMemBankSizeFourByte unless set.
#[unsafe(no_mangle)]
pub extern "C" fn cudaDeviceGetSharedMemConfig(config: *mut c_int) -> Status {
    api(|| {
        put(
            config,
            match prefs()?.1 {
                0 => 1,
                s => s,
            },
        )
    })
}

/// `cudaDeviceGetPCIBusId`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaDeviceGetPCIBusId(id: *mut c_char, len: c_int, dev: c_int) -> Status {
    api(|| {
        let d = state::driver()?;
        state::valid_device(dev)?;
        error::check(d.cuDeviceGetPCIBusId(id, len, dev))
    })
}

/// `cudaDeviceGetByPCIBusId`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaDeviceGetByPCIBusId(dev: *mut c_int, id: *const c_char) -> Status {
    api(|| {
        let d = state::driver()?;
        let mut n = 0;
        error::check(d.cuDeviceGetByPCIBusId(&mut n, id))?;
        put(dev, n)
    })
}

/// `cudaDeviceCanAccessPeer`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaDeviceCanAccessPeer(can: *mut c_int, dev: c_int, peer: c_int) -> Status {
    api(|| {
        let d = state::driver()?;
        state::valid_device(dev)?;
        state::valid_device(peer)?;
        let mut c = 0;
        error::check(d.cuDeviceCanAccessPeer(&mut c, dev, peer))?;
        put(can, c)
    })
}

/// `cudaDeviceGetP2PAttribute`: the driver's answer (from the system's topology).
#[unsafe(no_mangle)]
pub extern "C" fn cudaDeviceGetP2PAttribute(value: *mut c_int, attr: c_int, src: c_int, dst: c_int) -> Status {
    api(|| {
        let d = state::driver()?;
        state::valid_device(src)?;
        state::valid_device(dst)?;
        let mut v = 0;
        error::check(d.cuDeviceGetP2PAttribute(&mut v, attr, src, dst))?;
        put(value, v)
    })
}

/// `cudaDeviceEnablePeerAccess`: the current device's primary context may reach
/// `peer`'s (its primary context's memory, now and later); `flags` must be 0.
#[unsafe(no_mangle)]
pub extern "C" fn cudaDeviceEnablePeerAccess(peer: c_int, flags: c_uint) -> Status {
    api(|| {
        let d = state::driver()?;
        state::valid_device(peer)?;
        state::context()?;
        let p = state::primary(peer)?;
        error::check(d.cuCtxEnablePeerAccess(p, flags))
    })
}

/// `cudaDeviceDisablePeerAccess`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaDeviceDisablePeerAccess(peer: c_int) -> Status {
    api(|| {
        let d = state::driver()?;
        state::valid_device(peer)?;
        state::context()?;
        let p = state::primary(peer)?;
        error::check(d.cuCtxDisablePeerAccess(p))
    })
}

/// `cudaChooseDevice`: the first device whose compute capability is at least the one
/// `prop` asks for (major, minor), else device 0.
#[unsafe(no_mangle)]
pub extern "C" fn cudaChooseDevice(dev: *mut c_int, prop: *const DeviceProp) -> Status {
    api(|| {
        let want = crate::raw::get(prop).ok_or(cudaErrorInvalidValue)?;
        let d = state::driver()?;
        let mut n = 0;
        error::check(d.cuDeviceGetCount(&mut n))?;
        let cc = |k: c_int| -> Result<(c_int, c_int), Status> {
            let (mut a, mut b) = (0, 0);
            error::check(d.cuDeviceGetAttribute(&mut a, 75, k))?;
            error::check(d.cuDeviceGetAttribute(&mut b, 76, k))?;
            Ok((a, b))
        };
        for k in 0..n {
            if cc(k)? >= (want.major, want.minor) {
                return put(dev, k);
            }
        }
        put(dev, 0)
    })
}

/// `cudaSetValidDevices`: the devices (in order) a thread that set none uses; the list
/// must name valid devices, no repeats.
#[unsafe(no_mangle)]
pub extern "C" fn cudaSetValidDevices(list: *const c_int, len: c_int) -> Status {
    api(|| {
        let n = usize::try_from(len).map_err(|_| cudaErrorInvalidValue)?;
        let mut v = Vec::with_capacity(n);
        for k in 0..n {
            let dev = crate::raw::get(list.wrapping_add(k)).ok_or(cudaErrorInvalidValue)?;
            state::valid_device(dev)?;
            if v.contains(&dev) {
                return Err(cudaErrorInvalidValue);
            }
            v.push(dev);
        }
        state::registry().valid = v;
        Ok(())
    })
}

/// `cudaInitDevice`: initialize device `dev`'s primary context (flags as
/// cudaSetDeviceFlags's; cudaInitDeviceFlagsAreValid in `flags` applies them).
#[unsafe(no_mangle)]
pub extern "C" fn cudaInitDevice(dev: c_int, device_flags: c_uint, flags: c_uint) -> Status {
    api(|| {
        state::valid_device(dev)?;
        if flags & !1 != 0 {
            return Err(cudaErrorInvalidValue);
        }
        let prev = state::device();
        state::set_device(dev)?;
        if flags & 1 != 0 {
            let s = cudaSetDeviceFlags(device_flags);
            if s != cudaSuccess {
                return Err(s);
            }
        }
        state::set_device(prev)
    })
}

/// `cudaGetDriverEntryPointByVersion`: a Driver API entry point of rgdev's libcuda.so.1
/// by base name and CUDA version (the driver's cuGetProcAddress); a name the driver does
/// not have is success with `*status` cudaDriverEntryPointSymbolNotFound.
#[unsafe(no_mangle)]
pub extern "C" fn cudaGetDriverEntryPointByVersion(
    symbol: *const c_char,
    pfn: *mut *mut std::ffi::c_void,
    version: c_uint,
    flags: u64,
    status: *mut c_int,
) -> Status {
    api(|| {
        let d = state::driver()?;
        let v = c_int::try_from(version).map_err(|_| cudaErrorInvalidValue)?;
        let mut st: c_int = 0;
        let r = error::check(d.cuGetProcAddress(symbol, pfn, v, flags, &mut st));
        if !status.is_null() {
            put(status, st)?;
        }
        // A symbol the driver does not have is the status's news, not an error (CUDA 12).
        match r {
            Err(e) if e == cudaErrorSymbolNotFound && st != 0 => Ok(()),
            r => r,
        }
    })
}

/// `cudaGetDriverEntryPoint`: as `cudaGetDriverEntryPointByVersion` at this runtime's
/// version (12000).
#[unsafe(no_mangle)]
pub extern "C" fn cudaGetDriverEntryPoint(
    symbol: *const c_char,
    pfn: *mut *mut std::ffi::c_void,
    flags: u64,
    status: *mut c_int,
) -> Status {
    cudaGetDriverEntryPointByVersion(symbol, pfn, 12000, flags, status)
}

/// `cudaProfilerStart`: profiling collection is rgdev's own and always on (`rgdev run
/// --stats`); with no profiling tool attached CUDA's call does nothing either.
#[unsafe(no_mangle)]
pub extern "C" fn cudaProfilerStart() -> Status {
    api(|| state::driver().map(|_| ()))
}

/// `cudaProfilerStop`: as `cudaProfilerStart`.
#[unsafe(no_mangle)]
pub extern "C" fn cudaProfilerStop() -> Status {
    api(|| state::driver().map(|_| ()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_properties_struct_has_cudas_size_and_offsets() {
        use super::DeviceProp;
        // name[256], a 16-byte UUID, luid[8] and its mask, padded to 8 for the sizes.
        assert_eq!(core::mem::offset_of!(DeviceProp, totalGlobalMem), 288);
        assert_eq!(core::mem::offset_of!(DeviceProp, multiProcessorCount), 388);
        // The C header's struct is checked against this one by tests/c/runtime.c.
        assert_eq!(core::mem::size_of::<DeviceProp>() % 8, 0);
    }
}
