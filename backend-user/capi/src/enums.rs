//! CUDA's enums, declared once: the attribute and option numbers the entry points match on.
//! `include/cuda.h` declares the same names and values for C programs, and a test reads the
//! header and checks it against these tables (and `CUresult` against `CuError`), so the two
//! cannot drift.

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
    /// `CUdevice_attribute`: what cuDeviceGetAttribute answers.
    device_attr = "CUdevice_attribute_enum" {
        CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
        CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
        CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3,
        CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4,
        CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
        CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
        CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
        CU_DEVICE_ATTRIBUTE_SHARED_MEMORY_PER_BLOCK = 8,
        CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY = 9,
        CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
        CU_DEVICE_ATTRIBUTE_MAX_PITCH = 11,
        CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK = 12,
        CU_DEVICE_ATTRIBUTE_REGISTERS_PER_BLOCK = 12,
        CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13,
        CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT = 14,
        CU_DEVICE_ATTRIBUTE_GPU_OVERLAP = 15,
        CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
        CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT = 17,
        CU_DEVICE_ATTRIBUTE_INTEGRATED = 18,
        CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY = 19,
        CU_DEVICE_ATTRIBUTE_COMPUTE_MODE = 20,
        CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT = 30,
        CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS = 31,
        CU_DEVICE_ATTRIBUTE_ECC_ENABLED = 32,
        CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33,
        CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = 34,
        CU_DEVICE_ATTRIBUTE_TCC_DRIVER = 35,
        CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36,
        CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37,
        CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
        CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
        CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT = 40,
        CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING = 41,
        CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID = 50,
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
        CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR = 82,
        CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY = 83,
        CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD = 84,
        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
        CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR = 106,
        CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = 115,
    }
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
        same(super::device_attr::ALL, super::device_attr::C_NAME);
        same(super::func_attr::ALL, super::func_attr::C_NAME);
        same(super::jit_option::ALL, super::jit_option::C_NAME);
        assert_eq!(super::device_attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 75);
    }

    #[test]
    fn cuda_errors_match_the_header() {
        let mut ours = vec![("CUDA_SUCCESS".to_string(), 0)];
        ours.extend((1..=1000).filter_map(CuError::from_code).map(|e| (e.name().to_string(), e.code() as c_int)));
        assert_eq!(ours, header_enum("cudaError_enum"), "CuError and cuda.h's CUresult differ");
    }
}
