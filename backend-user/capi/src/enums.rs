//! CUDA's enums, declared once: the attribute and option numbers the entry points match on.
//! `include/cuda.h` declares the same names and values for C programs: the device
//! attributes are generated from it (build.rs), and a test reads it and checks the other
//! tables against it (and `CUresult` against `CuError`), so the two cannot drift.

/// Declares a CUDA enum as a module of `c_int` constants plus the table of every entry.
macro_rules! cuda_enum {
    ($(#[$m:meta])* $module:ident = $c_name:literal { $($name:ident = $value:expr),* $(,)? }) => {
        $(#[$m])*
        #[allow(dead_code)]
        pub mod $module {
            use std::ffi::c_int;
            $(#[doc = concat!("`", stringify!($name), "`")] pub const $name: c_int = $value;)*
            /// The enum's tag in cuda.h.
            pub const C_NAME: &str = $c_name;
            /// Every entry, in declaration order.
            pub const ALL: &[(&str, c_int)] = &[$((stringify!($name), $value)),*];
        }
    };
}
cuda_enum! {
    /// `CUresult`: every code of CUDA 12.9 (`CuError` has those rgdev returns).
    result = "cudaError_enum" {
        CUDA_SUCCESS = 0,
        CUDA_ERROR_INVALID_VALUE = 1,
        CUDA_ERROR_OUT_OF_MEMORY = 2,
        CUDA_ERROR_NOT_INITIALIZED = 3,
        CUDA_ERROR_DEINITIALIZED = 4,
        CUDA_ERROR_PROFILER_DISABLED = 5,
        CUDA_ERROR_PROFILER_NOT_INITIALIZED = 6,
        CUDA_ERROR_PROFILER_ALREADY_STARTED = 7,
        CUDA_ERROR_PROFILER_ALREADY_STOPPED = 8,
        CUDA_ERROR_STUB_LIBRARY = 34,
        CUDA_ERROR_DEVICE_UNAVAILABLE = 46,
        CUDA_ERROR_NO_DEVICE = 100,
        CUDA_ERROR_INVALID_DEVICE = 101,
        CUDA_ERROR_DEVICE_NOT_LICENSED = 102,
        CUDA_ERROR_INVALID_IMAGE = 200,
        CUDA_ERROR_INVALID_CONTEXT = 201,
        CUDA_ERROR_CONTEXT_ALREADY_CURRENT = 202,
        CUDA_ERROR_MAP_FAILED = 205,
        CUDA_ERROR_UNMAP_FAILED = 206,
        CUDA_ERROR_ARRAY_IS_MAPPED = 207,
        CUDA_ERROR_ALREADY_MAPPED = 208,
        CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
        CUDA_ERROR_ALREADY_ACQUIRED = 210,
        CUDA_ERROR_NOT_MAPPED = 211,
        CUDA_ERROR_NOT_MAPPED_AS_ARRAY = 212,
        CUDA_ERROR_NOT_MAPPED_AS_POINTER = 213,
        CUDA_ERROR_ECC_UNCORRECTABLE = 214,
        CUDA_ERROR_UNSUPPORTED_LIMIT = 215,
        CUDA_ERROR_CONTEXT_ALREADY_IN_USE = 216,
        CUDA_ERROR_PEER_ACCESS_UNSUPPORTED = 217,
        CUDA_ERROR_INVALID_PTX = 218,
        CUDA_ERROR_INVALID_GRAPHICS_CONTEXT = 219,
        CUDA_ERROR_NVLINK_UNCORRECTABLE = 220,
        CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221,
        CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
        CUDA_ERROR_JIT_COMPILATION_DISABLED = 223,
        CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY = 224,
        CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC = 225,
        CUDA_ERROR_CONTAINED = 226,
        CUDA_ERROR_INVALID_SOURCE = 300,
        CUDA_ERROR_FILE_NOT_FOUND = 301,
        CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND = 302,
        CUDA_ERROR_SHARED_OBJECT_INIT_FAILED = 303,
        CUDA_ERROR_OPERATING_SYSTEM = 304,
        CUDA_ERROR_INVALID_HANDLE = 400,
        CUDA_ERROR_ILLEGAL_STATE = 401,
        CUDA_ERROR_LOSSY_QUERY = 402,
        CUDA_ERROR_NOT_FOUND = 500,
        CUDA_ERROR_NOT_READY = 600,
        CUDA_ERROR_ILLEGAL_ADDRESS = 700,
        CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
        CUDA_ERROR_LAUNCH_TIMEOUT = 702,
        CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING = 703,
        CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704,
        CUDA_ERROR_PEER_ACCESS_NOT_ENABLED = 705,
        CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE = 708,
        CUDA_ERROR_CONTEXT_IS_DESTROYED = 709,
        CUDA_ERROR_ASSERT = 710,
        CUDA_ERROR_TOO_MANY_PEERS = 711,
        CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712,
        CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED = 713,
        CUDA_ERROR_HARDWARE_STACK_ERROR = 714,
        CUDA_ERROR_ILLEGAL_INSTRUCTION = 715,
        CUDA_ERROR_MISALIGNED_ADDRESS = 716,
        CUDA_ERROR_INVALID_ADDRESS_SPACE = 717,
        CUDA_ERROR_INVALID_PC = 718,
        CUDA_ERROR_LAUNCH_FAILED = 719,
        CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE = 720,
        CUDA_ERROR_TENSOR_MEMORY_LEAK = 721,
        CUDA_ERROR_NOT_PERMITTED = 800,
        CUDA_ERROR_NOT_SUPPORTED = 801,
        CUDA_ERROR_SYSTEM_NOT_READY = 802,
        CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
        CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804,
        CUDA_ERROR_MPS_CONNECTION_FAILED = 805,
        CUDA_ERROR_MPS_RPC_FAILURE = 806,
        CUDA_ERROR_MPS_SERVER_NOT_READY = 807,
        CUDA_ERROR_MPS_MAX_CLIENTS_REACHED = 808,
        CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED = 809,
        CUDA_ERROR_MPS_CLIENT_TERMINATED = 810,
        CUDA_ERROR_CDP_NOT_SUPPORTED = 811,
        CUDA_ERROR_CDP_VERSION_MISMATCH = 812,
        CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900,
        CUDA_ERROR_STREAM_CAPTURE_INVALIDATED = 901,
        CUDA_ERROR_STREAM_CAPTURE_MERGE = 902,
        CUDA_ERROR_STREAM_CAPTURE_UNMATCHED = 903,
        CUDA_ERROR_STREAM_CAPTURE_UNJOINED = 904,
        CUDA_ERROR_STREAM_CAPTURE_ISOLATION = 905,
        CUDA_ERROR_STREAM_CAPTURE_IMPLICIT = 906,
        CUDA_ERROR_CAPTURED_EVENT = 907,
        CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD = 908,
        CUDA_ERROR_TIMEOUT = 909,
        CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE = 910,
        CUDA_ERROR_EXTERNAL_DEVICE = 911,
        CUDA_ERROR_INVALID_CLUSTER_SIZE = 912,
        CUDA_ERROR_FUNCTION_NOT_LOADED = 913,
        CUDA_ERROR_INVALID_RESOURCE_TYPE = 914,
        CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION = 915,
        CUDA_ERROR_KEY_ROTATION = 916,
        CUDA_ERROR_UNKNOWN = 999,
    }
}

/// cuGetErrorString's text for the codes rgdev never returns (`CuError` describes the
/// others).
pub const OTHER_DESCRIPTIONS: &[(std::ffi::c_int, &str)] = &[
    (5, "profiler disabled while using external profiling tool"),
    (6, "profiler not initialized: call cudaProfilerInitialize()"),
    (7, "profiler already started"),
    (8, "profiler already stopped"),
    (34, "CUDA driver is a stub library"),
    (46, "CUDA-capable device(s) is/are busy or unavailable"),
    (102, "device doesn't have valid Grid license"),
    (202, "context already current"),
    (206, "unmap of buffer object failed"),
    (207, "array is mapped"),
    (208, "resource already mapped"),
    (210, "resource already acquired"),
    (211, "resource not mapped"),
    (212, "resource not mapped as array"),
    (213, "resource not mapped as pointer"),
    (214, "uncorrectable ECC error encountered"),
    (215, "limit is not supported on this architecture"),
    (216, "exclusive-thread device already in use by a different thread"),
    (217, "peer access is not supported between these two devices"),
    (219, "invalid OpenGL or DirectX context"),
    (220, "uncorrectable NVLink error detected during the execution"),
    (221, "PTX JIT compiler library not found"),
    (222, "the provided PTX was compiled with an unsupported toolchain."),
    (223, "PTX JIT compilation was disabled"),
    (224, "the provided execution affinity is not supported"),
    (225, "the provided PTX contains unsupported call to cudaDeviceSynchronize"),
    (226, "an exception occurred on the device that was contained"),
    (300, "device kernel image is invalid"),
    (302, "shared object symbol not found"),
    (303, "shared object initialization failed"),
    (304, "OS call failed or operation not supported on this OS"),
    (402, "attempted introspection would be semantically lossy"),
    (703, "launch uses incompatible texturing mode"),
    (704, "peer access is already enabled"),
    (705, "peer access has not been enabled"),
    (711, "peer mapping resources exhausted"),
    (714, "hardware stack error"),
    (717, "operation not supported on global/shared address space"),
    (718, "invalid program counter"),
    (720, "too many blocks in cooperative launch"),
    (721, "tensor memory not completely freed"),
    (800, "operation not permitted"),
    (802, "system not yet initialized"),
    (803, "system has unsupported display driver / cuda driver combination"),
    (804, "forward compatibility was attempted on non supported HW"),
    (805, "MPS client failed to connect to the MPS control daemon or the MPS server"),
    (806, "the remote procedural call between the MPS server and the MPS client failed"),
    (807, "MPS server is not ready to accept new MPS client requests"),
    (808, "the hardware resources required to create MPS client have been exhausted"),
    (809, "the hardware resources required to support device connections have been exhausted"),
    (810, "the MPS client has been terminated by the server"),
    (811, "the module is using CUDA Dynamic Parallelism, but the current configuration does not support it"),
    (812, "the module uses a CUDA Dynamic Parallelism version the device does not support"),
    (900, "operation not permitted when stream is capturing"),
    (901, "operation failed due to a previous error during capture"),
    (902, "operation would result in a merge of separate capture sequences"),
    (903, "capture was not ended in the same stream as it began"),
    (904, "capturing stream has unjoined work"),
    (905, "dependency created on uncaptured work in another stream"),
    (906, "operation would make the legacy stream depend on a capturing blocking stream"),
    (907, "operation not permitted on an event last recorded in a capturing stream"),
    (908, "attempt to terminate a thread-local capture sequence from another thread"),
    (909, "wait operation timed out"),
    (
        910,
        "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update",
    ),
    (911, "an async error has occurred in external entity outside of CUDA"),
    (912, "a kernel launch error has occurred due to cluster misconfiguration"),
    (913, "the function handle is not loaded when calling an API that requires a loaded function"),
    (914, "one or more resources passed in are not valid resource types for the operation"),
    (915, "one or more resources are insufficient or non-applicable for the operation"),
    (916, "an error occurred during key rotation"),
];

/// `CUdevice_attribute`: what cuDeviceGetAttribute answers. Generated by build.rs from
/// include/cuda.h, which declares it once for C programs and for this library.
#[allow(dead_code)]
pub mod device_attr {
    use std::ffi::c_int;
    include!(concat!(env!("OUT_DIR"), "/device_attr.rs"));
}

cuda_enum! {
    /// `CUfunction_attribute`: what cuFuncGetAttribute answers.
    func_attr = "CUfunction_attribute_enum" {
        CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
        CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
        CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2,
        CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
        CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
        CU_FUNC_ATTRIBUTE_PTX_VERSION = 5,
        CU_FUNC_ATTRIBUTE_BINARY_VERSION = 6,
        CU_FUNC_ATTRIBUTE_CACHE_MODE_CA = 7,
        CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
    }
}

cuda_enum! {
    /// `CUjit_option`: cuModuleLoadDataEx and cuLinkCreate options.
    jit_option = "CUjit_option_enum" {
        CU_JIT_MAX_REGISTERS = 0,
        CU_JIT_THREADS_PER_BLOCK = 1,
        CU_JIT_WALL_TIME = 2,
        CU_JIT_INFO_LOG_BUFFER = 3,
        CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
        CU_JIT_ERROR_LOG_BUFFER = 5,
        CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
        CU_JIT_OPTIMIZATION_LEVEL = 7,
        CU_JIT_TARGET_FROM_CUCONTEXT = 8,
        CU_JIT_TARGET = 9,
        CU_JIT_FALLBACK_STRATEGY = 10,
        CU_JIT_GENERATE_DEBUG_INFO = 11,
        CU_JIT_LOG_VERBOSE = 12,
        CU_JIT_GENERATE_LINE_INFO = 13,
        CU_JIT_CACHE_MODE = 14,
    }
}

cuda_enum! {
    /// `CUjitInputType`: what cuLinkAddData and cuLinkAddFile are given.
    jit_input = "CUjitInputType_enum" {
        CU_JIT_INPUT_CUBIN = 0,
        CU_JIT_INPUT_PTX = 1,
        CU_JIT_INPUT_FATBINARY = 2,
        CU_JIT_INPUT_OBJECT = 3,
        CU_JIT_INPUT_LIBRARY = 4,
        CU_JIT_INPUT_NVVM = 5,
        CU_JIT_NUM_INPUT_TYPES = 6,
    }
}

#[cfg(test)]
mod tests {
    use runtime_core::CuError;
    use std::ffi::c_int;

    const HEADER: &str = include_str!("../../include/cuda.h");

    /// The entries of `typedef enum TAG { NAME = VALUE, ... }` in cuda.h.
    fn header_enum(tag: &str) -> Vec<(String, c_int)> {
        let start = HEADER.find(&format!("typedef enum {tag} {{")).unwrap_or_else(|| panic!("{tag} not in cuda.h"));
        let body = &HEADER[start..];
        let body = &body[body.find('{').unwrap() + 1..body.find('}').unwrap()];
        body.split(',')
            .filter(|e| !e.trim().is_empty())
            .map(|e| {
                let (name, value) = e.split_once('=').unwrap_or_else(|| panic!("{tag}: entry without a value: {e}"));
                let value = value.trim();
                let value = match value.strip_prefix("0x") {
                    Some(hex) => c_int::from_str_radix(hex, 16),
                    None => value.parse(),
                };
                (name.trim().to_string(), value.unwrap_or_else(|_| panic!("{tag}: bad value in {e}")))
            })
            .collect()
    }

    fn same(table: &[(&str, c_int)], tag: &str) {
        let ours: Vec<(String, c_int)> = table.iter().map(|&(n, v)| (n.to_string(), v)).collect();
        assert_eq!(ours, header_enum(tag), "{tag}: the Rust table and cuda.h differ");
    }

    #[test]
    fn enums_match_the_header() {
        same(super::func_attr::ALL, super::func_attr::C_NAME);
        same(super::jit_option::ALL, super::jit_option::C_NAME);
        same(super::jit_input::ALL, super::jit_input::C_NAME);
        assert_eq!(super::device_attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 75);
    }

    #[test]
    fn cuda_errors_match_the_header() {
        same(super::result::ALL, super::result::C_NAME);
        // Every error the runtime returns is CUDA's, by number and name.
        for e in (1..=1000).filter_map(CuError::from_code) {
            assert!(super::result::ALL.contains(&(e.name(), e.code() as c_int)), "{e}");
        }
        // Every code has a description: the runtime's or the table's, not both.
        for &(name, code) in &super::result::ALL[1..] {
            let ours = CuError::from_code(code as u32).is_some();
            let other = super::OTHER_DESCRIPTIONS.iter().any(|&(c, _)| c == code);
            assert!(ours != other, "{name}");
        }
    }
}
