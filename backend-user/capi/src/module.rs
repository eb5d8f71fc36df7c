//! Modules: loading PTX and cubin-like images (with JIT options), functions and globals.

use crate::enums::jit_option::*;
use crate::state::{current, gpu_of, guard, handle, key, state};
use crate::{CUdeviceptr, CUresult, Handle, apitrace, managed, profile, raw};
use backend_user::CuError;
use backend_user::Result;
use runtime_core::ImageKind;
use runtime_core::ModuleHandle;
use std::ffi::c_char;
use std::ffi::c_int;
use std::ffi::c_uint;
use std::ffi::c_void;

/// Load an image into the current context, compiling PTX for its device with register limit
/// `max_regs`; JIT messages go to `error_log`/`info_log`.
pub(crate) fn load(
    image: &[u8],
    max_regs: Option<u32>,
    error_log: &mut String,
    info_log: &mut String,
) -> Result<ModuleHandle> {
    load_placed(image, max_regs, error_log, info_log, &[])
}

/// [`load`] with the `.global` variables `place` names at the addresses it gives
/// (runtime core's `module_load_placed`); the loader's managed variables are recorded.
pub(crate) fn load_placed(
    image: &[u8],
    max_regs: Option<u32>,
    error_log: &mut String,
    info_log: &mut String,
    place: &[(&str, u64)],
) -> Result<ModuleHandle> {
    let (gpu, h) = current()?;
    let m = match runtime_core::image_kind(image) {
        ImageKind::Ptx(src) => {
            let prog = ptx::compile_ptx_with(src, &gpu.jit_options(max_regs)).map_err(|e| {
                *error_log = format!("ptxas: {e}");
                if e.unsupported { CuError::NotSupported } else { CuError::InvalidPtx }
            })?;
            info_log.push_str(&resources(&prog));
            gpu.module_load_placed(h, prog, place)?
        }
        ImageKind::Container => {
            let prog = ptx::Program::from_container(image).ok_or(CuError::InvalidImage);
            prog.and_then(|p| gpu.module_load_placed(h, p, place))
                .inspect_err(|e| *error_log = format!("rgdev: {}", e.description()))?
        }
        _ => gpu.module_load_image(h, image).inspect_err(|e| *error_log = format!("rgdev: {}", e.description()))?,
    };
    if let Err(e) = managed::loaded(&gpu, h, m) {
        let _ = gpu.module_unload(h, m);
        return Err(e);
    }
    Ok(m)
}

/// ptxas's per-kernel resource lines, for the info log.
pub(crate) fn resources(prog: &ptx::Program) -> String {
    prog.kernels
        .iter()
        .map(|k| {
            format!(
                "ptxas info: Function properties for {}: {} registers, {} bytes smem, {} bytes lmem\n",
                k.name, k.regs, k.shared_bytes, k.local_bytes
            )
        })
        .collect()
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
        let m = load(&bytes, None, &mut String::new(), &mut String::new())?;
        raw::put(module, handle(m.0))
    })
}

/// cuModuleLoadData: PTX text (NUL-terminated) or an rgdev container.
#[unsafe(no_mangle)]
pub extern "C" fn cuModuleLoadData(module: *mut Handle, image: *const c_void) -> CUresult {
    apitrace::call("cuModuleLoadData", Some(std::ptr::null_mut()), || {
        guard(|| {
            current()?;
            if module.is_null() {
                return Err(CuError::InvalidValue);
            }
            let m = load(raw::image(image.cast())?, None, &mut String::new(), &mut String::new())?;
            raw::put(module, handle(m.0))
        })
    })
}

/// `CU_JIT_NUM_OPTIONS` of CUDA 12: option numbers below it are accepted; this library acts
/// on the log buffers and CU_JIT_MAX_REGISTERS and ignores the others.
pub(crate) const JIT_NUM_OPTIONS: c_int = 33;

/// JIT options as a caller passed them to cuModuleLoadDataEx or cuLinkCreate: each option
/// with its value, and the address of the values array, into which the log sizes are
/// written back (cuLinkCreate's arrays stay the caller's until cuLinkDestroy, as CUDA
/// requires). Addresses are kept with their provenance exposed, so a link state holding
/// them can live in the library's state.
pub(crate) struct JitOptions {
    opts: Vec<(c_int, usize)>,
    values: usize,
}

impl JitOptions {
    /// Read `n` options; an unknown option number is CUDA_ERROR_INVALID_VALUE.
    pub(crate) fn read(n: c_uint, options: *const c_int, values: *mut *mut c_void) -> Result<Self> {
        if n > 0 && (options.is_null() || values.is_null()) {
            return Err(CuError::InvalidValue);
        }
        let mut opts = Vec::with_capacity((n as usize).min(64));
        for i in 0..n as usize {
            let o = raw::get(options.wrapping_add(i))?;
            if !(0..JIT_NUM_OPTIONS).contains(&o) {
                return Err(CuError::InvalidValue);
            }
            opts.push((o, raw::get(values.wrapping_add(i).cast_const())?.expose_provenance()));
        }
        Ok(Self { opts, values: values.expose_provenance() })
    }

    fn find(&self, o: c_int) -> Option<usize> {
        self.opts.iter().position(|x| x.0 == o)
    }

    /// The register limit they ask for (CU_JIT_MAX_REGISTERS).
    pub(crate) fn max_regs(&self) -> Option<u32> {
        self.find(CU_JIT_MAX_REGISTERS).map(|i| self.opts[i].1 as u32)
    }

    /// Fill the error and info log buffers (truncated, NUL-terminated) and set their size
    /// options to the bytes written.
    pub(crate) fn write_logs(&self, err: &str, info: &str) -> Result<()> {
        let values = std::ptr::with_exposed_provenance_mut::<*mut c_void>(self.values);
        for (buf_opt, size_opt, text) in [
            (CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, err),
            (CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, info),
        ] {
            let (Some(b), Some(s)) = (self.find(buf_opt), self.find(size_opt)) else { continue };
            let (buf, cap) = (self.opts[b].1, self.opts[s].1);
            if cap == 0 || buf == 0 {
                continue;
            }
            let out = raw::bytes_mut(std::ptr::with_exposed_provenance_mut(buf), cap)?;
            let k = text.len().min(cap - 1);
            out[..k].copy_from_slice(&text.as_bytes()[..k]);
            out[k] = 0;
            raw::put(values.wrapping_add(s), std::ptr::without_provenance_mut(k))?;
        }
        Ok(())
    }
}

/// cuModuleLoadDataEx: as cuModuleLoadData, filling the info and error log buffers with
/// the JIT's messages (truncated, NUL-terminated; the size options are updated to the
/// bytes written) and honouring CU_JIT_MAX_REGISTERS.
#[unsafe(no_mangle)]
pub extern "C" fn cuModuleLoadDataEx(
    module: *mut Handle,
    image: *const c_void,
    num_options: c_uint,
    options: *const c_int,
    values: *mut *mut c_void,
) -> CUresult {
    apitrace::call("cuModuleLoadDataEx", Some(std::ptr::null_mut()), || {
        guard(|| {
            current()?;
            if module.is_null() {
                return Err(CuError::InvalidValue);
            }
            let jit = JitOptions::read(num_options, options, values)?;
            let (mut err, mut info) = (String::new(), String::new());
            let r = load(raw::image(image.cast())?, jit.max_regs(), &mut err, &mut info);
            let logs = jit.write_logs(&err, &info);
            let m = r?;
            if let Err(e) = logs.and_then(|()| raw::put(module, handle(m.0))) {
                // The caller never gets the handle: the module must not outlive this call.
                let _ = unload(m);
                return Err(e);
            }
            Ok(())
        })
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
        s.profile.collect(&crate::state::shown(&s.gpus, &s.physical));
        s.gpu_of(m.0)
    };
    managed::unloading(&gpu, m.ctx(), m);
    gpu.module_unload(m.ctx(), m)?;
    managed::unloaded(&mut *state()?, m);
    Ok(())
}

/// cuModuleGetFunction: CUDA_ERROR_NOT_FOUND for an unknown name.
#[unsafe(no_mangle)]
pub extern "C" fn cuModuleGetFunction(pf: *mut Handle, module: Handle, name: *const c_char) -> CUresult {
    guard(|| {
        let m = ModuleHandle(key(module));
        let gpu = gpu_of(m.0)?;
        if pf.is_null() {
            return Err(CuError::InvalidValue);
        }
        let name = raw::str(name)?;
        let f = gpu.module_get_function(m.ctx(), m, name)?;
        let launch_id = gpu.func_launch_id(f.ctx(), f)?;
        let a = gpu.func_attributes(f.ctx(), f)?;
        let facts = profile::FuncFacts { regs: a.regs, shared: a.shared_bytes, local: a.local_bytes };
        let mut st = state()?;
        st.profile.name(launch_id, name, facts, m.ctx().0);
        // One logical GPU: the kernel's copies on the other GPUs run its other blocks.
        for (o, c, of) in gpu.member_kernels(m.ctx(), f)? {
            st.profile.name(o.func_launch_id(c, of)?, name, facts, c.0);
        }
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
        let (p, n) = gpu_of(m.0)?.module_get_global(m.ctx(), m, raw::str(name)?)?;
        if !dptr.is_null() {
            raw::put(dptr, p)?;
        }
        if !bytes.is_null() {
            raw::put(bytes, n as usize)?;
        }
        Ok(())
    })
}
