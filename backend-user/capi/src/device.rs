//! Devices: count, name, memory, compute capability and attributes, which come from the
//! device through the runtime (`DeviceInfo`).

use crate::state::{Board, check_device, guard, state};
use crate::{CUdevice, CUresult, raw};
use backend_user::CuError;
use std::ffi::c_char;
use std::ffi::c_int;

/// cuDeviceGetCount: the GPUs of the system.
#[unsafe(no_mangle)]
pub extern "C" fn cuDeviceGetCount(count: *mut c_int) -> CUresult {
    guard(|| {
        let n = state()?.gpus.len();
        raw::put(count, n as c_int)
    })
}

/// cuDeviceGet: a `CUdevice` is its ordinal.
#[unsafe(no_mangle)]
pub extern "C" fn cuDeviceGet(device: *mut CUdevice, ordinal: c_int) -> CUresult {
    guard(|| {
        check_device(ordinal)?;
        raw::put(device, ordinal)
    })
}

/// cuDeviceGetName: the board's name, truncated to `len - 1` bytes and NUL-terminated.
#[unsafe(no_mangle)]
pub extern "C" fn cuDeviceGetName(name: *mut c_char, len: c_int, dev: CUdevice) -> CUresult {
    guard(|| {
        let st = state()?;
        let b = st.device(dev)?;
        let n = usize::try_from(len).ok().filter(|&n| n > 0).ok_or(CuError::InvalidValue)?;
        // The board the preset describes (the chipset in NV_PMC_BOOT_0 names only its
        // architecture).
        let text = format!("rgdev {} (simulated)", b.config.name);
        let out = raw::bytes_mut(name.cast(), n)?;
        let k = text.len().min(n - 1);
        out[..k].copy_from_slice(&text.as_bytes()[..k]);
        out[k] = 0;
        Ok(())
    })
}

/// cuDeviceTotalMem_v2: VRAM bytes.
#[unsafe(no_mangle)]
pub extern "C" fn cuDeviceTotalMem_v2(bytes: *mut usize, dev: CUdevice) -> CUresult {
    guard(|| {
        let total = state()?.device(dev)?.dev.info().vram_size;
        raw::put(bytes, total as usize)
    })
}

/// cuDeviceComputeCapability (deprecated but common).
#[unsafe(no_mangle)]
pub extern "C" fn cuDeviceComputeCapability(major: *mut c_int, minor: *mut c_int, dev: CUdevice) -> CUresult {
    guard(|| {
        let (ma, mi) = state()?.device(dev)?.dev.info().compute_capability;
        raw::put(major, ma as c_int)?;
        raw::put(minor, mi as c_int)
    })
}

/// The value of a device attribute (`CUdevice_attribute` number), from what the runtime
/// read from the device at probe (`DeviceInfo`) and its launch limits; `None` for
/// attributes not answered.
pub(crate) fn attribute(b: &Board, attr: c_int) -> Option<c_int> {
    use crate::enums::device_attr::*;
    use runtime_core::limits::{MAX_BLOCK, max_grid};
    let gpu = b.dev.gpu();
    let info = gpu.info();
    let (domain, bus, device, _) = b.dev.placement().bdf;
    let i = |v: u64| c_int::try_from(v).unwrap_or(c_int::MAX);
    if let Some(v) = texture_attribute(runtime_core::limits::texture_limits(info.compute_capability), attr) {
        return Some(i(v.into()));
    }
    Some(match attr {
        CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK => i(MAX_BLOCK[0] as u64),
        CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X..=CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z => {
            i(MAX_BLOCK[(attr - CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X) as usize] as u64)
        }
        CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X..=CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z => {
            i(max_grid(info.compute_capability)[(attr - CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X) as usize] as u64)
        }
        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK => i(gpu.max_shared_per_block() as u64),
        CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY => 64 * 1024,
        CU_DEVICE_ATTRIBUTE_WARP_SIZE => hw::isa::WARP_SIZE as c_int,
        CU_DEVICE_ATTRIBUTE_MAX_PITCH => c_int::MAX,
        CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK => i(gpu.max_regs_per_block() as u64),
        CU_DEVICE_ATTRIBUTE_CLOCK_RATE => i(info.clock_khz as u64), // kHz
        CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT => i(runtime_core::context::texture::TEXTURE_ALIGNMENT),
        CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT => i(runtime_core::context::texture::TEXTURE_PITCH_ALIGNMENT),
        CU_DEVICE_ATTRIBUTE_GPU_OVERLAP => 1, // a copy engine
        CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT => i(info.sms as u64),
        CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT => (info.watchdog_cycles != 0) as c_int, // the device's watchdog
        CU_DEVICE_ATTRIBUTE_INTEGRATED => 0,
        CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY => 1,
        CU_DEVICE_ATTRIBUTE_COMPUTE_MODE => 0, // default
        CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT => 512,
        CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS => info.concurrent_kernels as c_int, // grids share SMs
        CU_DEVICE_ATTRIBUTE_ECC_ENABLED => 0,
        CU_DEVICE_ATTRIBUTE_PCI_BUS_ID => i(bus.into()),
        CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID => i(device.into()),
        CU_DEVICE_ATTRIBUTE_TCC_DRIVER => 0,
        CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE => i(info.mem_clock_khz as u64), // kHz
        CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH => i(info.mem_bus_bits as u64),
        CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE => i(info.l2_bytes as u64),
        CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR => i(info.sm.threads as u64),
        CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT => 1,
        CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING => i32::from(gpu.unified_addressing()),
        CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID => i(domain.into()),
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR => i(info.compute_capability.0 as u64),
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR => i(info.compute_capability.1 as u64),
        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR => i(info.sm.shared as u64),
        CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR => i(info.sm.regs as u64),
        // Managed memory needs unified addressing. Paged (compute capability 6.0 on), its
        // pages migrate to the GPU that touches them and come back to the host when the
        // host synchronizes: the host may not touch it while kernels run, nor reach a
        // GPU's pages directly. Otherwise it is host memory that the host and kernels
        // reach at any time: concurrent and direct.
        CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY => i32::from(gpu.unified_addressing()),
        CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS | CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST => {
            i32::from(gpu.unified_addressing() && !crate::demand::uvm().paging(gpu))
        }
        CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD => 0,
        // The SM's double-precision issue interval over its single-precision one.
        CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO => i(info.fp32_per_fp64.into()),
        // The PCI identity: device id over vendor id, subsystem id over subsystem vendor.
        CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID => (u32::from(info.device) << 16 | u32::from(info.vendor)) as c_int,
        CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID => {
            (u32::from(info.subsystem.1) << 16 | u32::from(info.subsystem.0)) as c_int
        }
        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN => i(gpu.max_shared_per_block_optin() as u64),
        CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR => i(info.sm.blocks as u64),
        CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED => 0, // no stream-ordered allocator
        CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED => 1, // cuMemCreate, cuMemMap, ...
        // The model's SMs have an L1 data cache for global and local loads.
        CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED | CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED => 1,
        CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED => 1, // cuStreamCreateWithPriority
        // cuLaunchCooperativeKernel, from compute capability 6.0 as in CUDA.
        CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH => c_int::from(info.compute_capability.0 >= 6),
        // Thread block clusters, from compute capability 9.0.
        CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH => c_int::from(info.compute_capability.0 >= 9),
        // The texture unit gathers (TLD4: tex2Dgather).
        CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER => 1,
        // cuMemHostRegister maps a program's pages (read-only on request).
        CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED | CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED => 1,
        // No NUMA: CU_DEVICE_NUMA_CONFIG_NONE, and -1 for the node ids.
        CU_DEVICE_ATTRIBUTE_NUMA_ID | CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID => -1,
        // Features rgdev does not have (yet): 0. Pageable memory access, IPC and interop handles, multi-device
        // cooperative and cluster launches, stream memory operations, preemption, compression, L2
        // persistence, RDMA, multicast, MPS, NUMA.
        CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID
        | CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT
        | CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED
        | CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS
        | CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED
        | CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM
        | CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1
        | CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1
        | CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1
        | CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH
        | CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES
        | CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES
        | CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED
        | CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED
        | CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED
        | CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED
        | CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE
        | CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE
        | CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED
        | CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK
        | CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED
        | CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED
        | CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED
        | CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS
        | CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING
        | CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES
        | CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED
        | CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS
        | CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR
        | CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED
        | CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED
        | CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED
        | CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED
        | CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS
        | CU_DEVICE_ATTRIBUTE_NUMA_CONFIG
        | CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED
        | CU_DEVICE_ATTRIBUTE_MPS_ENABLED
        | CU_DEVICE_ATTRIBUTE_D3D12_CIG_SUPPORTED
        | CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_ALGORITHM_MASK
        | CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_MAXIMUM_LENGTH
        | CU_DEVICE_ATTRIBUTE_VULKAN_CIG_SUPPORTED
        | CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED
        | CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED
        | CU_DEVICE_ATTRIBUTE_HOST_NUMA_MULTINODE_IPC_SUPPORTED
        | CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED
        | CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED
        | CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED
        | CU_DEVICE_ATTRIBUTE_ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED => 0,
        _ => return None,
    })
}

/// A texture or surface size limit (CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE*/SURFACE*) from
/// the architecture's table, which array creation and texture binding enforce too.
fn texture_attribute(lim: &runtime_core::limits::TextureLimits, attr: c_int) -> Option<u32> {
    use crate::enums::device_attr::*;
    Some(match attr {
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH => lim.tex1d,
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH => lim.tex2d[0],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT => lim.tex2d[1],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH => lim.tex3d[0],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT => lim.tex3d[1],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH => lim.tex3d[2],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH => lim.tex2d_layered[0],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT => lim.tex2d_layered[1],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS => lim.tex2d_layered[2],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH => lim.tex1d_layered[0],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS => lim.tex1d_layered[1],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH => lim.tex2d_gather[0],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT => lim.tex2d_gather[1],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE => lim.tex3d_alt[0],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE => lim.tex3d_alt[1],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE => lim.tex3d_alt[2],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH => lim.cubemap,
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH => lim.cubemap_layered[0],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS => lim.cubemap_layered[1],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH => lim.surf1d,
        CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH => lim.surf2d[0],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT => lim.surf2d[1],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH => lim.surf3d[0],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT => lim.surf3d[1],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH => lim.surf3d[2],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH => lim.surf1d_layered[0],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS => lim.surf1d_layered[1],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH => lim.surf2d_layered[0],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT => lim.surf2d_layered[1],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS => lim.surf2d_layered[2],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH => lim.surfcube,
        CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH => lim.surfcube_layered[0],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS => lim.surfcube_layered[1],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH => lim.tex1d_linear,
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH => lim.tex2d_linear[0],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT => lim.tex2d_linear[1],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH => lim.tex2d_linear[2],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH => lim.tex2d_mipmapped[0],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT => lim.tex2d_mipmapped[1],
        CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH => lim.tex1d_mipmapped,
        _ => return None,
    })
}

/// cuDeviceGetAttribute: unknown attributes get CUDA_ERROR_INVALID_VALUE.
#[unsafe(no_mangle)]
pub extern "C" fn cuDeviceGetAttribute(pi: *mut c_int, attrib: c_int, dev: CUdevice) -> CUresult {
    guard(|| {
        let v = attribute(state()?.device(dev)?, attrib).ok_or(CuError::InvalidValue)?;
        raw::put(pi, v)
    })
}

/// cuDeviceGetPCIBusId: the GPU's place on the buses (`fake_pci::system::Placement`) as
/// `domain:bus:device.function` in hex, as CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID/BUS_ID/
/// DEVICE_ID report it, truncated to `len - 1` bytes and NUL-terminated.
#[unsafe(no_mangle)]
pub extern "C" fn cuDeviceGetPCIBusId(id: *mut c_char, len: c_int, dev: CUdevice) -> CUresult {
    guard(|| {
        let text = state()?.device(dev)?.dev.pci_bus_id();
        let n = usize::try_from(len).ok().filter(|&n| n > 0).ok_or(CuError::InvalidValue)?;
        let out = raw::bytes_mut(id.cast(), n)?;
        let k = text.len().min(n - 1);
        out[..k].copy_from_slice(&text.as_bytes()[..k]);
        out[k] = 0;
        Ok(())
    })
}

/// The (domain, bus, device, function) of a PCI address in one of the forms CUDA takes:
/// `domain:bus:device.function`, `domain:bus:device`, `bus:device.function` (hex).
fn parse_pci(text: &str) -> Option<(u32, u32, u32, u32)> {
    let hex = |s: &str| (!s.is_empty() && s.len() <= 8).then(|| u32::from_str_radix(s, 16).ok()).flatten();
    let (head, function) = match text.rsplit_once('.') {
        Some((h, f)) => (h, Some(hex(f)?)),
        None => (text, None),
    };
    let parts: Vec<&str> = head.split(':').collect();
    match (parts.as_slice(), function) {
        ([d, b, v], f) => Some((hex(d)?, hex(b)?, hex(v)?, f.unwrap_or(0))),
        ([b, v], Some(f)) => Some((0, hex(b)?, hex(v)?, f)),
        _ => None,
    }
}

/// cuDeviceGetByPCIBusId: the device at a PCI address (CUDA_ERROR_INVALID_DEVICE where
/// there is none).
#[unsafe(no_mangle)]
pub extern "C" fn cuDeviceGetByPCIBusId(dev: *mut CUdevice, id: *const c_char) -> CUresult {
    guard(|| {
        let st = state()?;
        let want = parse_pci(raw::str(id)?).ok_or(CuError::InvalidValue)?;
        let i = st.devices().position(|d| Some(want) == parse_pci(&d.pci_bus_id())).ok_or(CuError::InvalidDevice)?;
        drop(st);
        raw::put(dev, i as CUdevice)
    })
}

/// The device's UUID: derived from its PCI identity and NV_PMC_BOOT_0 (vendor, device,
/// subsystem, revision, boot0), then `r` and its PCI bus and device numbers, so a board
/// has the same UUID in every run, and no two GPUs of a system share one.
fn uuid(b: &Board) -> [u8; 16] {
    let info = b.dev.info();
    let (_, bus, device, function) = b.dev.placement().bdf;
    let mut u = [0u8; 16];
    u[0..2].copy_from_slice(&info.vendor.to_be_bytes());
    u[2..4].copy_from_slice(&info.device.to_be_bytes());
    u[4..6].copy_from_slice(&info.subsystem.0.to_be_bytes());
    u[6..8].copy_from_slice(&info.subsystem.1.to_be_bytes());
    u[8] = info.revision;
    u[9..13].copy_from_slice(&info.boot0.to_be_bytes());
    u[13] = b'r';
    u[14] = bus;
    u[15] = device << 3 | function;
    u
}

/// cuDeviceGetUuid: 16 bytes (`CUuuid`).
#[unsafe(no_mangle)]
pub extern "C" fn cuDeviceGetUuid(out: *mut [u8; 16], dev: CUdevice) -> CUresult {
    guard(|| {
        let u = uuid(state()?.device(dev)?);
        raw::put(out, u)
    })
}

/// cuDeviceGetUuid_v2: the same UUID (CUDA 11.4's, which returns the MIG-aware one).
#[unsafe(no_mangle)]
pub extern "C" fn cuDeviceGetUuid_v2(out: *mut [u8; 16], dev: CUdevice) -> CUresult {
    cuDeviceGetUuid(out, dev)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pci_addresses_in_cudas_forms() {
        assert_eq!(parse_pci("0000:00:00.0"), Some((0, 0, 0, 0)));
        assert_eq!(parse_pci("00000000:3b:00.1"), Some((0, 0x3b, 0, 1)));
        assert_eq!(parse_pci("0001:02:03"), Some((1, 2, 3, 0)));
        assert_eq!(parse_pci("3b:00.0"), Some((0, 0x3b, 0, 0)));
        for bad in ["", "3b:00", "zz:00.0", "0:0:0:0.0", "0000:00:00.", "123456789:00:00.0"] {
            assert_eq!(parse_pci(bad), None, "{bad}");
        }
    }
}
