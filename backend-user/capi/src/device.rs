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
        let st = state()?;
        raw::put(major, st.config.cc_major as c_int)?;
        raw::put(minor, st.config.cc_minor as c_int)
    })
}

/// The value of a device attribute (`CUdevice_attribute` number), from the device
/// configuration and the runtime's launch limits; `None` for attributes not answered.
pub(crate) fn attribute(st: &State, attr: c_int) -> Option<c_int> {
    use runtime_core::limits::{MAX_BLOCK, MAX_GRID};
    let gpu = st.gpu();
    let c = &st.config;
    let i = |v: u64| c_int::try_from(v).unwrap_or(c_int::MAX);
    Some(match attr {
        1 => i(MAX_BLOCK[0] as u64),                      // MAX_THREADS_PER_BLOCK
        2..=4 => i(MAX_BLOCK[attr as usize - 2] as u64),  // MAX_BLOCK_DIM_X/Y/Z
        5..=7 => i(MAX_GRID[attr as usize - 5] as u64),   // MAX_GRID_DIM_X/Y/Z
        8 => i(gpu.max_shared_per_block() as u64),        // MAX_SHARED_MEMORY_PER_BLOCK
        9 => 64 * 1024,                                   // TOTAL_CONSTANT_MEMORY
        10 => 32,                                         // WARP_SIZE
        11 => c_int::MAX,                                 // MAX_PITCH
        12 => i(gpu.max_regs_per_block() as u64),         // MAX_REGISTERS_PER_BLOCK
        13 => i(c.clock_mhz as u64 * 1000),               // CLOCK_RATE (kHz)
        14 => 512,                                        // TEXTURE_ALIGNMENT
        15 => 1,                                          // GPU_OVERLAP (a copy engine)
        16 => i(st.dev.info().sms as u64),                // MULTIPROCESSOR_COUNT
        17 => (gpu.info().watchdog_cycles != 0) as c_int, // KERNEL_EXEC_TIMEOUT (the device's watchdog)
        18 => 0,                                          // INTEGRATED
        19 => 1,                                          // CAN_MAP_HOST_MEMORY
        20 => 0,                                          // COMPUTE_MODE (default)
        30 => 512,                                        // SURFACE_ALIGNMENT
        31 => (c.mode == Mode::Timing) as c_int,          // CONCURRENT_KERNELS (grids share SMs)
        32 => 0,                                          // ECC_ENABLED
        33 => 0,                                          // PCI_BUS_ID
        34 => 0,                                          // PCI_DEVICE_ID
        35 => 0,                                          // TCC_DRIVER
        36 => i(c.mem_clock_mhz as u64 * 1000),           // MEMORY_CLOCK_RATE (kHz)
        37 => i(c.mem_bus_bits as u64),                   // GLOBAL_MEMORY_BUS_WIDTH
        38 => i(c.l2_bytes as u64),                       // L2_CACHE_SIZE
        39 => i(gpu.info().sm.threads as u64),            // MAX_THREADS_PER_MULTIPROCESSOR
        40 => 1,                                          // ASYNC_ENGINE_COUNT
        41 => 0,                                          // UNIFIED_ADDRESSING (host and device VAs differ)
        50 => 0,                                          // PCI_DOMAIN_ID
        75 => i(c.cc_major as u64),                       // COMPUTE_CAPABILITY_MAJOR
        76 => i(c.cc_minor as u64),                       // COMPUTE_CAPABILITY_MINOR
        81 => i(gpu.info().sm.shared as u64),             // MAX_SHARED_MEMORY_PER_MULTIPROCESSOR
        82 => i(gpu.info().sm.regs as u64),               // MAX_REGISTERS_PER_MULTIPROCESSOR
        83 => 0,                                          // MANAGED_MEMORY
        84 => 0,                                          // MULTI_GPU_BOARD
        97 => i(gpu.max_shared_per_block() as u64),       // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
        106 => i(gpu.info().sm.blocks as u64),            // MAX_BLOCKS_PER_MULTIPROCESSOR
        115 => 0,                                         // MEMORY_POOLS_SUPPORTED (no stream-ordered allocator)
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
