//! The Driver API underneath: libcuda.so.1, opened with `dlopen` and every entry point
//! resolved by base name through `cuGetProcAddress_v2` at CUDA 12.0, as NVIDIA's runtime
//! does. One driver, one state: a program that calls both APIs shares contexts, streams
//! and memory between them. This module and `raw` are the only unsafe code of the crate.
#![allow(unsafe_code)]
#![allow(non_snake_case)]

use std::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::OnceLock;

/// A Driver API status (`CUresult`).
pub type CUresult = c_int;
/// A context, stream, event, module or function handle.
pub type Handle = *mut c_void;
/// A device address.
pub type DevPtr = u64;

/// `cuGetProcAddress_v2`.
type GetProc = unsafe extern "C" fn(*const c_char, *mut *mut c_void, c_int, u64, *mut c_int) -> CUresult;

/// The CUDA version entry points are resolved for.
const CUDA_VERSION: c_int = 12000;

/// CUDA_ERROR_NOT_FOUND: a name the driver does not know.
const NOT_FOUND: CUresult = 500;

macro_rules! driver {
    ($( $name:ident ( $($arg:ident : $ty:ty),* $(,)? ); )*) => {
        /// The Driver API entry points the runtime calls.
        pub struct Driver {
            $( $name: unsafe extern "C" fn($($ty),*) -> CUresult, )*
        }

        impl Driver {
            fn resolve(get: GetProc) -> Result<Self, CUresult> {
                Ok(Self { $( $name: {
                    let p = lookup(get, concat!(stringify!($name), "\0"))?;
                    // SAFETY: the driver resolved this base name at CUDA 12.0 to the entry
                    // point whose C prototype is the one declared here (cuda.h's), and a
                    // non-NULL function pointer has the size and validity of a fn pointer.
                    unsafe { core::mem::transmute::<*mut c_void, unsafe extern "C" fn($($ty),*) -> CUresult>(p) }
                }, )* })
            }

            $(
                #[doc = concat!("`", stringify!($name), "`.")]
                pub fn $name(&self, $($arg: $ty),*) -> CUresult {
                    // SAFETY: a C function of the driver with its declared prototype. It
                    // checks every handle and NULL pointer it is given; other pointers are
                    // the runtime's own locals or the caller's, under the Runtime API's
                    // contract (as in NVIDIA's runtime, which forwards them likewise).
                    unsafe { (self.$name)($($arg),*) }
                }
            )*
        }
    };
}

driver! {
    cuInit(flags: c_uint);
    cuGetProcAddress(symbol: *const c_char, pfn: *mut *mut c_void, version: c_int, flags: u64, status: *mut c_int);
    cuDriverGetVersion(v: *mut c_int);
    cuGetErrorName(e: CUresult, s: *mut *const c_char);
    cuGetErrorString(e: CUresult, s: *mut *const c_char);
    cuDeviceGetCount(n: *mut c_int);
    cuDeviceGet(d: *mut c_int, ordinal: c_int);
    cuDeviceGetAttribute(v: *mut c_int, attr: c_int, dev: c_int);
    cuDeviceGetName(name: *mut c_char, len: c_int, dev: c_int);
    cuDeviceTotalMem(bytes: *mut usize, dev: c_int);
    cuDeviceGetUuid(uuid: *mut c_void, dev: c_int);
    cuDevicePrimaryCtxRetain(ctx: *mut Handle, dev: c_int);
    cuDevicePrimaryCtxReset(dev: c_int);
    cuDevicePrimaryCtxSetFlags(dev: c_int, flags: c_uint);
    cuDevicePrimaryCtxGetState(dev: c_int, flags: *mut c_uint, active: *mut c_int);
    cuCtxSetCurrent(ctx: Handle);
    cuCtxGetCurrent(ctx: *mut Handle);
    cuCtxGetDevice(dev: *mut c_int);
    cuCtxSynchronize();
    cuCtxSetLimit(limit: c_int, value: usize);
    cuCtxGetLimit(value: *mut usize, limit: c_int);
    cuMemAlloc(p: *mut DevPtr, bytes: usize);
    cuMemFree(p: DevPtr);
    cuMemAllocHost(p: *mut *mut c_void, bytes: usize);
    cuMemHostAlloc(p: *mut *mut c_void, bytes: usize, flags: c_uint);
    cuMemFreeHost(p: *mut c_void);
    cuMemHostGetDevicePointer(d: *mut DevPtr, p: *mut c_void, flags: c_uint);
    cuMemGetInfo(free: *mut usize, total: *mut usize);
    cuMemcpyHtoD(dst: DevPtr, src: *const c_void, n: usize);
    cuMemcpyDtoH(dst: *mut c_void, src: DevPtr, n: usize);
    cuMemcpyDtoD(dst: DevPtr, src: DevPtr, n: usize);
    cuMemcpyHtoDAsync(dst: DevPtr, src: *const c_void, n: usize, s: Handle);
    cuMemcpyDtoHAsync(dst: *mut c_void, src: DevPtr, n: usize, s: Handle);
    cuMemcpyDtoDAsync(dst: DevPtr, src: DevPtr, n: usize, s: Handle);
    cuMemcpy(dst: DevPtr, src: DevPtr, n: usize);
    cuMemcpyAsync(dst: DevPtr, src: DevPtr, n: usize, s: Handle);
    cuMemsetD8(dst: DevPtr, v: u8, n: usize);
    cuMemsetD8Async(dst: DevPtr, v: u8, n: usize, s: Handle);
    cuMemAllocPitch(p: *mut DevPtr, pitch: *mut usize, width: usize, height: usize, elem: c_uint);
    cuMemcpy2D(p: *const c_void);
    cuMemcpy2DAsync(p: *const c_void, s: Handle);
    cuMemcpy3D(p: *const c_void);
    cuMemcpy3DAsync(p: *const c_void, s: Handle);
    cuMemsetD2D8(dst: DevPtr, pitch: usize, v: u8, w: usize, h: usize);
    cuMemsetD2D8Async(dst: DevPtr, pitch: usize, v: u8, w: usize, h: usize, s: Handle);
    cuMemHostRegister(p: *mut c_void, bytes: usize, flags: c_uint);
    cuMemHostUnregister(p: *mut c_void);
    cuMemHostGetFlags(flags: *mut c_uint, p: *mut c_void);
    cuPointerGetAttribute(data: *mut c_void, attr: c_int, p: DevPtr);
    cuMemAllocManaged(p: *mut DevPtr, bytes: usize, flags: c_uint);
    cuMemAdvise(p: DevPtr, n: usize, advice: c_int, dev: c_int);
    cuMemPrefetchAsync(p: DevPtr, n: usize, dev: c_int, s: Handle);
    cuMemRangeGetAttribute(data: *mut c_void, size: usize, attr: c_int, p: DevPtr, n: usize);
    cuMemRangeGetAttributes(
        data: *mut *mut c_void,
        sizes: *mut usize,
        attrs: *mut c_int,
        count: usize,
        p: DevPtr,
        n: usize,
    );
    cuStreamAttachMemAsync(s: Handle, p: DevPtr, length: usize, flags: c_uint);
    cuLaunchHostFunc(s: Handle, f: Option<extern "C" fn(*mut c_void)>, data: *mut c_void);
    cuStreamAddCallback(
        s: Handle,
        cb: Option<extern "C" fn(Handle, CUresult, *mut c_void)>,
        data: *mut c_void,
        flags: c_uint,
    );
    cuGetExportTable(table: *mut *const c_void, id: *const [u8; 16]);
    cuDeviceGetPCIBusId(s: *mut c_char, len: c_int, dev: c_int);
    cuDeviceGetByPCIBusId(dev: *mut c_int, s: *const c_char);
    cuDeviceCanAccessPeer(can: *mut c_int, dev: c_int, peer: c_int);
    cuDeviceGetP2PAttribute(v: *mut c_int, attr: c_int, src: c_int, dst: c_int);
    cuCtxEnablePeerAccess(peer: Handle, flags: c_uint);
    cuCtxDisablePeerAccess(peer: Handle);
    cuMemcpyPeer(dst: DevPtr, dc: Handle, src: DevPtr, sc: Handle, n: usize);
    cuMemcpyPeerAsync(dst: DevPtr, dc: Handle, src: DevPtr, sc: Handle, n: usize, s: Handle);
    cuCtxGetStreamPriorityRange(least: *mut c_int, greatest: *mut c_int);
    cuStreamCreateWithPriority(s: *mut Handle, flags: c_uint, priority: c_int);
    cuStreamGetFlags(s: Handle, flags: *mut c_uint);
    cuStreamGetDevice(s: Handle, device: *mut c_int);
    cuStreamGetPriority(s: Handle, priority: *mut c_int);
    cuEventRecordWithFlags(e: Handle, s: Handle, flags: c_uint);
    cuOccupancyMaxActiveBlocksPerMultiprocessor(n: *mut c_int, f: Handle, block: c_int, shared: usize);
    cuOccupancyMaxActiveClusters(n: *mut c_int, f: Handle, config: *const CuLaunchConfig);
    cuArray3DCreate(a: *mut Handle, desc: *const c_void);
    cuArrayDestroy(a: Handle);
    cuMipmappedArrayCreate(m: *mut Handle, desc: *const c_void, levels: c_uint);
    cuMipmappedArrayGetLevel(a: *mut Handle, m: Handle, level: c_uint);
    cuMipmappedArrayDestroy(m: Handle);
    cuArray3DGetDescriptor(desc: *mut c_void, a: Handle);
    cuTexObjectCreate(t: *mut u64, res: *const c_void, tex: *const c_void, view: *const c_void);
    cuTexObjectDestroy(t: u64);
    cuTexObjectGetResourceDesc(res: *mut c_void, t: u64);
    cuTexObjectGetTextureDesc(tex: *mut c_void, t: u64);
    cuSurfObjectCreate(s: *mut u64, res: *const c_void);
    cuSurfObjectDestroy(s: u64);
    cuSurfObjectGetResourceDesc(res: *mut c_void, s: u64);
    cuStreamCreate(s: *mut Handle, flags: c_uint);
    cuStreamDestroy(s: Handle);
    cuStreamSynchronize(s: Handle);
    cuStreamQuery(s: Handle);
    cuStreamWaitEvent(s: Handle, e: Handle, flags: c_uint);
    cuEventCreate(e: *mut Handle, flags: c_uint);
    cuEventRecord(e: Handle, s: Handle);
    cuEventQuery(e: Handle);
    cuEventSynchronize(e: Handle);
    cuEventElapsedTime(ms: *mut f32, a: Handle, b: Handle);
    cuEventDestroy(e: Handle);
    cuModuleLoadData(m: *mut Handle, image: *const c_void);
    cuLinkCreate(n: c_uint, opts: *mut c_int, vals: *mut *mut c_void, state: *mut Handle);
    cuLinkAddData(
        state: Handle,
        kind: c_int,
        data: *mut c_void,
        size: usize,
        name: *const c_char,
        n: c_uint,
        opts: *mut c_int,
        vals: *mut *mut c_void,
    );
    cuLinkComplete(state: Handle, image: *mut *mut c_void, size: *mut usize);
    cuLinkDestroy(state: Handle);
    cuModuleGetFunction(f: *mut Handle, m: Handle, name: *const c_char);
    cuModuleGetGlobal(p: *mut DevPtr, bytes: *mut usize, m: Handle, name: *const c_char);
    cuFuncGetAttribute(v: *mut c_int, attr: c_int, f: Handle);
    cuFuncSetAttribute(f: Handle, attr: c_int, value: c_int);
    cuLaunchKernel(
        f: Handle,
        gx: c_uint,
        gy: c_uint,
        gz: c_uint,
        bx: c_uint,
        by: c_uint,
        bz: c_uint,
        shared: c_uint,
        s: Handle,
        params: *mut *mut c_void,
        extra: *mut *mut c_void,
    );
    cuLaunchCooperativeKernel(
        f: Handle,
        gx: c_uint,
        gy: c_uint,
        gz: c_uint,
        bx: c_uint,
        by: c_uint,
        bz: c_uint,
        shared: c_uint,
        s: Handle,
        params: *mut *mut c_void,
    );
    cuLaunchKernelEx(config: *const CuLaunchConfig, f: Handle, params: *mut *mut c_void, extra: *mut *mut c_void);
}

/// `CUlaunchConfig` (cuda.h).
#[repr(C)]
pub struct CuLaunchConfig {
    /// Grid.
    pub grid: [c_uint; 3],
    /// Block.
    pub block: [c_uint; 3],
    /// Dynamic shared memory bytes.
    pub shared: c_uint,
    /// Stream.
    pub stream: Handle,
    /// Attributes.
    pub attrs: *const CuLaunchAttribute,
    /// How many.
    pub num_attrs: c_uint,
}

/// `CUlaunchAttribute` (cuda.h): an id and the value union's first words.
#[repr(C)]
pub struct CuLaunchAttribute {
    /// CU_LAUNCH_ATTRIBUTE_*.
    pub id: c_uint,
    /// Padding.
    pub pad: c_uint,
    /// The value.
    pub val: [c_int; 16],
}

/// rgdev's private table of its libcuda (hw::export): its layout, as the driver exports it.
#[repr(C)]
struct ExportTable {
    size: usize,
    map_managed_data: unsafe extern "C" fn(*mut c_void, usize, *mut DevPtr) -> CUresult,
    module_load_placed:
        unsafe extern "C" fn(*mut Handle, *const c_void, c_uint, *const *const c_char, *const DevPtr) -> CUresult,
}

/// The private entry points of rgdev's libcuda (`cuGetExportTable`, hw::export).
pub struct Exports(&'static ExportTable);

impl Exports {
    /// The table of `d`; CUDA_ERROR_NOT_SUPPORTED (801) when the driver has none (another
    /// driver) or a shorter one.
    pub fn get(d: &Driver) -> Result<Self, CUresult> {
        let mut p: *const c_void = core::ptr::null();
        match d.cuGetExportTable(&mut p, &hw::export::RGDEV_EXPORT_TABLE_ID) {
            0 if !p.is_null() => {}
            0 => return Err(801),
            e => return Err(e),
        }
        // SAFETY: rgdev's libcuda returned its static table for this id (hw::export): a
        // `usize` size first, which is read before anything else.
        let size = unsafe { *p.cast::<usize>() };
        if size < core::mem::size_of::<ExportTable>() {
            return Err(801);
        }
        // SAFETY: the table is static in the driver, which is never unloaded, and at least
        // as long as this layout, whose function pointers have the prototypes hw::export
        // documents.
        Ok(Self(unsafe { &*p.cast::<ExportTable>() }))
    }

    /// Map the program's pages holding `[p, p + bytes)` into the current context; the
    /// device address of `p`.
    pub fn map_managed_data(&self, p: *mut c_void, bytes: usize, dptr: &mut DevPtr) -> CUresult {
        // SAFETY: the driver's entry point (see `get`); it checks its arguments.
        unsafe { (self.0.map_managed_data)(p, bytes, dptr) }
    }

    /// cuModuleLoadData with the variables `names` placed at `addrs` (as many).
    pub fn module_load_placed(
        &self,
        m: &mut Handle,
        image: *const c_void,
        names: &[*const c_char],
        addrs: &[DevPtr],
    ) -> CUresult {
        let n = names.len().min(addrs.len()) as c_uint;
        // SAFETY: the driver's entry point (see `get`), given arrays of `n` entries.
        unsafe { (self.0.module_load_placed)(m, image, n, names.as_ptr(), addrs.as_ptr()) }
    }
}

/// Resolve one NUL-terminated base name.
fn lookup(get: GetProc, name: &'static str) -> Result<*mut c_void, CUresult> {
    let mut p: *mut c_void = core::ptr::null_mut();
    let mut status: c_int = 0;
    // SAFETY: `name` is NUL-terminated ('static); the out-pointers are live locals.
    let r = unsafe { get(name.as_ptr().cast(), &mut p, CUDA_VERSION, 0, &mut status) };
    match r {
        0 if !p.is_null() => Ok(p),
        0 => Err(NOT_FOUND),
        e => Err(e),
    }
}

/// The driver, opened on first use; `Err` holds the CUresult that stopped it (the
/// library missing reads CUDA_ERROR_NO_DEVICE's runtime twin, InsufficientDriver).
pub fn get() -> Result<&'static Driver, CUresult> {
    static DRIVER: OnceLock<Result<Driver, CUresult>> = OnceLock::new();
    DRIVER.get_or_init(open).as_ref().map_err(|&e| e)
}

/// CUresult for "libcuda.so.1 is not there" (CUDA_ERROR_SHARED_OBJECT_INIT_FAILED).
pub const NO_LIBRARY: CUresult = 303;

fn open() -> Result<Driver, CUresult> {
    // SAFETY: dlopen with a NUL-terminated name; the handle stays open for the process
    // (never dlclosed), so every pointer resolved from it stays valid.
    let lib = unsafe { libc::dlopen(c"libcuda.so.1".as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
    if lib.is_null() {
        return Err(NO_LIBRARY);
    }
    // SAFETY: dlsym on a live handle with a NUL-terminated name.
    let sym = unsafe { libc::dlsym(lib, c"cuGetProcAddress_v2".as_ptr()) };
    if sym.is_null() {
        return Err(NO_LIBRARY);
    }
    // SAFETY: cuGetProcAddress_v2's C prototype is `GetProc` (cuda.h).
    let get = unsafe { core::mem::transmute::<*mut c_void, GetProc>(sym) };
    Driver::resolve(get)
}
