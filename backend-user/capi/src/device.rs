//! Devices: count, name, memory, compute capability and attributes, which come from the
//! device through the runtime (`DeviceInfo`).

use super::*;

/// cuDeviceGetCount: one simulated device.
#[unsafe(no_mangle)]
pub extern "C" fn cuDeviceGetCount(count: *mut c_int) -> CUresult {
    guard(|| {
        initialized()?;
        raw::put(count, 1)
    })
}

/// cuDeviceGet: ordinal 0 only.
#[unsafe(no_mangle)]
pub extern "C" fn cuDeviceGet(device: *mut CUdevice, ordinal: c_int) -> CUresult {
    guard(|| {
        check_device(ordinal)?;
        raw::put(device, 0)
    })
}

/// cuDeviceGetName: the board's name, truncated to `len - 1` bytes and NUL-terminated.
#[unsafe(no_mangle)]
pub extern "C" fn cuDeviceGetName(name: *mut c_char, len: c_int, dev: CUdevice) -> CUresult {
    guard(|| {
        check_device(dev)?;
        let n = usize::try_from(len).ok().filter(|&n| n > 0).ok_or(CuError::InvalidValue)?;
        let st = state()?;
        let text = format!("rgdev simulated GPU ({:?}, {} SMs)", st.dev.info().chipset, st.dev.info().sms);
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
        check_device(dev)?;
        let total = state()?.dev.info().vram_size;
        raw::put(bytes, total as usize)
    })
}

/// cuDeviceComputeCapability (deprecated but common).
#[unsafe(no_mangle)]
pub extern "C" fn cuDeviceComputeCapability(major: *mut c_int, minor: *mut c_int, dev: CUdevice) -> CUresult {
    guard(|| {
        check_device(dev)?;
        let (ma, mi) = state()?.dev.info().compute_capability;
        raw::put(major, ma as c_int)?;
        raw::put(minor, mi as c_int)
    })
}

/// The value of a device attribute (`CUdevice_attribute` number), from what the runtime
/// read from the device at probe (`DeviceInfo`) and its launch limits; `None` for
/// attributes not answered.
pub(crate) fn attribute(st: &State, attr: c_int) -> Option<c_int> {
    use crate::enums::device_attr::*;
    use runtime_core::limits::{MAX_BLOCK, MAX_GRID};
    let gpu = st.gpu();
    let info = gpu.info();
    let i = |v: u64| c_int::try_from(v).unwrap_or(c_int::MAX);
    Some(match attr {
        CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK => i(MAX_BLOCK[0] as u64),
        CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X..=CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z => {
            i(MAX_BLOCK[(attr - CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X) as usize] as u64)
        }
        CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X..=CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z => {
            i(MAX_GRID[(attr - CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X) as usize] as u64)
        }
        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK => i(gpu.max_shared_per_block() as u64),
        CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY => 64 * 1024,
        CU_DEVICE_ATTRIBUTE_WARP_SIZE => hw::isa::WARP_SIZE as c_int,
        CU_DEVICE_ATTRIBUTE_MAX_PITCH => c_int::MAX,
        CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK => i(gpu.max_regs_per_block() as u64),
        CU_DEVICE_ATTRIBUTE_CLOCK_RATE => i(info.clock_khz as u64), // kHz
        CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT => 512,
        CU_DEVICE_ATTRIBUTE_GPU_OVERLAP => 1, // a copy engine
        CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT => i(info.sms as u64),
        CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT => (info.watchdog_cycles != 0) as c_int, // the device's watchdog
        CU_DEVICE_ATTRIBUTE_INTEGRATED => 0,
        CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY => 1,
        CU_DEVICE_ATTRIBUTE_COMPUTE_MODE => 0, // default
        CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT => 512,
        CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS => info.concurrent_kernels as c_int, // grids share SMs
        CU_DEVICE_ATTRIBUTE_ECC_ENABLED => 0,
        CU_DEVICE_ATTRIBUTE_PCI_BUS_ID => 0,
        CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID => 0,
        CU_DEVICE_ATTRIBUTE_TCC_DRIVER => 0,
        CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE => i(info.mem_clock_khz as u64), // kHz
        CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH => i(info.mem_bus_bits as u64),
        CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE => i(info.l2_bytes as u64),
        CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR => i(info.sm.threads as u64),
        CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT => 1,
        CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING => 0, // host and device VAs differ
        CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID => 0,
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR => i(info.compute_capability.0 as u64),
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR => i(info.compute_capability.1 as u64),
        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR => i(info.sm.shared as u64),
        CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR => i(info.sm.regs as u64),
        CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY => 0,
        CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD => 0,
        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN => i(gpu.max_shared_per_block() as u64),
        CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR => i(info.sm.blocks as u64),
        CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED => 0, // no stream-ordered allocator
        _ => return None,
    })
}

/// cuDeviceGetAttribute: unknown attributes get CUDA_ERROR_INVALID_VALUE.
#[unsafe(no_mangle)]
pub extern "C" fn cuDeviceGetAttribute(pi: *mut c_int, attrib: c_int, dev: CUdevice) -> CUresult {
    guard(|| {
        check_device(dev)?;
        let v = attribute(&*state()?, attrib).ok_or(CuError::InvalidValue)?;
        raw::put(pi, v)
    })
}

/// cuDeviceCanAccessPeer: there is one device, so never.
#[unsafe(no_mangle)]
pub extern "C" fn cuDeviceCanAccessPeer(can: *mut c_int, dev: CUdevice, peer: CUdevice) -> CUresult {
    guard(|| {
        check_device(dev)?;
        check_device(peer)?;
        raw::put(can, 0)
    })
}
