//! Modules: loading PTX and cubin-like images (with JIT options), functions and globals.

use super::*;
use crate::enums::jit_option::*;

/// Load an image into the current context; JIT messages go to `error_log`/`info_log`.
pub(crate) fn load(image: &[u8], error_log: &mut String, info_log: &mut String) -> Result<ModuleHandle> {
    let (gpu, h) = current()?;
    let m = match runtime_core::image_kind(image) {
        ImageKind::Ptx(src) => {
            let prog = ptx::compile_ptx(src).map_err(|e| {
                *error_log = format!("ptxas: {e}");
                CuError::InvalidPtx
            })?;
            for k in &prog.kernels {
                info_log.push_str(&format!(
                    "ptxas info: Function properties for {}: {} registers, {} bytes smem, {} bytes lmem\n",
                    k.name, k.regs, k.shared_bytes, k.local_bytes
                ));
            }
            gpu.module_load(h, prog)?
        }
        _ => gpu.module_load_image(h, image).inspect_err(|e| *error_log = format!("rgdev: {}", e.description()))?,
    };
    Ok(m)
}

/// cuModuleLoad: a PTX or rgdev container file, whatever its name ends with.
#[unsafe(no_mangle)]
pub extern "C" fn cuModuleLoad(module: *mut Handle, fname: *const c_char) -> CUresult {
    guard(|| {
        current()?;
        if module.is_null() {
            return Err(CuError::InvalidValue);
        }
        let bytes = std::fs::read(raw::str(fname)?).map_err(|_| CuError::FileNotFound)?;
        let m = load(&bytes, &mut String::new(), &mut String::new())?;
        raw::put(module, handle(m.0))
    })
}

/// cuModuleLoadData: PTX text (NUL-terminated) or an rgdev container.
#[unsafe(no_mangle)]
pub extern "C" fn cuModuleLoadData(module: *mut Handle, image: *const c_void) -> CUresult {
    guard(|| {
        current()?;
        if module.is_null() {
            return Err(CuError::InvalidValue);
        }
        let m = load(raw::image(image.cast())?, &mut String::new(), &mut String::new())?;
        raw::put(module, handle(m.0))
    })
}

/// `CU_JIT_NUM_OPTIONS` of CUDA 12: option numbers below it are accepted; this library acts
/// on the log buffers and ignores the others.
pub(crate) const JIT_NUM_OPTIONS: c_int = 33;

/// cuModuleLoadDataEx: as cuModuleLoadData, filling the info and error log buffers with
/// the JIT's messages (truncated, NUL-terminated; the size options are updated to the
/// bytes written).
#[unsafe(no_mangle)]
pub extern "C" fn cuModuleLoadDataEx(
    module: *mut Handle,
    image: *const c_void,
    num_options: c_uint,
    options: *const c_int,
    values: *mut *mut c_void,
) -> CUresult {
    guard(|| {
        current()?;
        if module.is_null() || (num_options > 0 && (options.is_null() || values.is_null())) {
            return Err(CuError::InvalidValue);
        }
        let n = num_options as usize;
        let mut opts = Vec::with_capacity(n.min(64));
        for i in 0..n {
            let o = raw::get(options.wrapping_add(i))?;
            if !(0..JIT_NUM_OPTIONS).contains(&o) {
                return Err(CuError::InvalidValue);
            }
            opts.push((o, raw::get(values.wrapping_add(i).cast_const())?));
        }
        let find = |o: c_int| opts.iter().position(|x| x.0 == o);
        let (mut err, mut info) = (String::new(), String::new());
        let r = load(raw::image(image.cast())?, &mut err, &mut info);
        let logs = (|| {
            for (buf_opt, size_opt, text) in [
                (CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, &err),
                (CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, &info),
            ] {
                let (Some(b), Some(s)) = (find(buf_opt), find(size_opt)) else { continue };
                let cap = opts[s].1.addr();
                if cap == 0 || opts[b].1.is_null() {
                    continue;
                }
                let out = raw::bytes_mut(opts[b].1.cast(), cap)?;
                let k = text.len().min(cap - 1);
                out[..k].copy_from_slice(&text.as_bytes()[..k]);
                out[k] = 0;
                raw::put(values.wrapping_add(s), std::ptr::without_provenance_mut(k))?;
            }
            Ok(())
        })();
        let m = r?;
        if let Err(e) = logs.and_then(|()| raw::put(module, handle(m.0))) {
            // The caller never gets the handle: the module must not outlive this call.
            let _ = unload(m);
            return Err(e);
        }
        Ok(())
    })
}

/// cuModuleUnload: its functions become invalid handles.
#[unsafe(no_mangle)]
pub extern "C" fn cuModuleUnload(module: Handle) -> CUresult {
    guard(|| unload(ModuleHandle(key(module))))
}

/// Unload module `m`: its functions become invalid handles.
pub(crate) fn unload(m: ModuleHandle) -> Result<()> {
    let gpu = {
        let mut st = state()?;
        let s = &mut *st;
        s.profile.collect(&s.dev);
        s.gpu()
    };
    gpu.module_unload(m.ctx(), m)
}

/// cuModuleGetFunction: CUDA_ERROR_NOT_FOUND for an unknown name.
#[unsafe(no_mangle)]
pub extern "C" fn cuModuleGetFunction(pf: *mut Handle, module: Handle, name: *const c_char) -> CUresult {
    guard(|| {
        let (gpu, m) = (gpu()?, ModuleHandle(key(module)));
        if pf.is_null() {
            return Err(CuError::InvalidValue);
        }
        let name = raw::str(name)?;
        let f = gpu.module_get_function(m.ctx(), m, name)?;
        let launch_id = gpu.func_launch_id(f.ctx(), f)?;
        state()?.profile.name(launch_id, name);
        raw::put(pf, handle(f.0))
    })
}

/// cuModuleGetGlobal_v2: either output may be NULL.
#[unsafe(no_mangle)]
pub extern "C" fn cuModuleGetGlobal_v2(
    dptr: *mut CUdeviceptr,
    bytes: *mut usize,
    module: Handle,
    name: *const c_char,
) -> CUresult {
    guard(|| {
        let m = ModuleHandle(key(module));
        let (p, n) = gpu()?.module_get_global(m.ctx(), m, raw::str(name)?)?;
        if !dptr.is_null() {
            raw::put(dptr, p)?;
        }
        if !bytes.is_null() {
            raw::put(bytes, n as usize)?;
        }
        Ok(())
    })
}
