//! Texture and surface references, the legacy binding API that kernels with module-scope
//! `.texref`/`.surfref` variables use: cuModuleGetTexRef, cuTexRefSet*/Get*,
//! cuModuleGetSurfRef, cuSurfRefSetArray/GetArray. A reference's state stays on the host
//! until its module's next launch binds it (runtime-core's `context::texref`).
//!
//! Not supported (CUDA_ERROR_NOT_SUPPORTED): sRGB reads, and references not of a module
//! (cuTexRefCreate, cuTexRefDestroy, cuParamSetTexRef).

use super::texture::{CUDA_ARRAY_DESCRIPTOR, array_handle, format};
use crate::state::{gpu_of, guard, handle, key};
use crate::{CUdeviceptr, CUresult, Handle, raw};
use backend_user::CuError;
use backend_user::Result;
use runtime_core::{MipmappedHandle, ModuleHandle, Pitch2DMem, RefBinding, RefState, TRSF_ALL, TexRefHandle};
use std::ffi::c_char;
use std::ffi::c_int;
use std::ffi::c_uint;

/// CU_TRSA_OVERRIDE_FORMAT: cuTexRefSetArray's one flag (the array's format replaces the
/// reference's, which rgdev always does).
const TRSA_OVERRIDE_FORMAT: c_uint = 0x01;

fn texref(r: Handle) -> Result<TexRefHandle> {
    if r.is_null() { Err(CuError::InvalidValue) } else { Ok(TexRefHandle(key(r))) }
}

fn get_ref(out: *mut Handle, m: Handle, name: *const c_char, surface: bool) -> Result<()> {
    if out.is_null() || m.is_null() {
        return Err(CuError::InvalidValue);
    }
    let r = gpu_of(key(m))?.module_get_ref(ModuleHandle(key(m)), raw::str(name)?, surface)?;
    raw::put(out, handle(r.0))
}

fn state(r: Handle, surface: bool) -> Result<RefState> {
    gpu_of(key(r))?.texref_state(texref(r)?, surface)
}

fn update(r: Handle, f: impl FnOnce(&mut RefState) -> Result<()>) -> CUresult {
    guard(|| gpu_of(key(r))?.texref_update(texref(r)?, f))
}

/// cuModuleGetTexRef: CUDA_ERROR_NOT_FOUND for a name the module does not declare.
#[unsafe(no_mangle)]
pub extern "C" fn cuModuleGetTexRef(out: *mut Handle, m: Handle, name: *const c_char) -> CUresult {
    guard(|| get_ref(out, m, name, false))
}

/// cuModuleGetSurfRef: CUDA_ERROR_NOT_FOUND for a name the module does not declare.
#[unsafe(no_mangle)]
pub extern "C" fn cuModuleGetSurfRef(out: *mut Handle, m: Handle, name: *const c_char) -> CUresult {
    guard(|| get_ref(out, m, name, true))
}

/// cuTexRefSetArray: the reference reads the array, in the array's format.
#[unsafe(no_mangle)]
pub extern "C" fn cuTexRefSetArray(r: Handle, a: Handle, flags: c_uint) -> CUresult {
    guard(|| {
        if flags != TRSA_OVERRIDE_FORMAT {
            return Err(CuError::InvalidValue);
        }
        gpu_of(key(r))?.texref_set_array(texref(r)?, false, array_handle(a)?)
    })
}

/// cuTexRefSetMipmappedArray: the reference reads every level, in the array's format.
#[unsafe(no_mangle)]
pub extern "C" fn cuTexRefSetMipmappedArray(r: Handle, m: Handle, flags: c_uint) -> CUresult {
    guard(|| {
        if flags != TRSA_OVERRIDE_FORMAT || m.is_null() {
            return Err(CuError::InvalidValue);
        }
        gpu_of(key(r))?.texref_set_mipmapped(texref(r)?, MipmappedHandle(key(m)))
    })
}

/// cuTexRefGetMipmappedArray: INVALID_VALUE unless bound to a mipmapped array.
#[unsafe(no_mangle)]
pub extern "C" fn cuTexRefGetMipmappedArray(out: *mut Handle, r: Handle) -> CUresult {
    guard(|| match state(r, false)?.binding {
        RefBinding::Mipmapped(m) => raw::put(out, handle(m)),
        _ => Err(CuError::InvalidValue),
    })
}

/// cuSurfRefSetArray: the array must have been made with CUDA_ARRAY3D_SURFACE_LDST.
#[unsafe(no_mangle)]
pub extern "C" fn cuSurfRefSetArray(r: Handle, a: Handle, flags: c_uint) -> CUresult {
    guard(|| {
        if flags != 0 {
            return Err(CuError::InvalidValue);
        }
        gpu_of(key(r))?.texref_set_array(texref(r)?, true, array_handle(a)?)
    })
}

/// cuTexRefSetAddress_v2: linear memory read by element index; `*offset` (if not NULL)
/// receives the bytes fetches must skip, since the texture starts at the
/// TEXTURE_ALIGNMENT boundary at or below `ptr`.
#[unsafe(no_mangle)]
pub extern "C" fn cuTexRefSetAddress_v2(offset: *mut usize, r: Handle, ptr: CUdeviceptr, bytes: usize) -> CUresult {
    guard(|| {
        let off = gpu_of(key(r))?.texref_set_address(texref(r)?, ptr, bytes as u64)?;
        if !offset.is_null() {
            raw::put(offset, off as usize)?;
        }
        Ok(())
    })
}

/// cuTexRefSetAddress2D_v3: pitch-linear 2D memory in the descriptor's format; the
/// pointer and pitch are multiples of TEXTURE_PITCH_ALIGNMENT.
#[unsafe(no_mangle)]
pub extern "C" fn cuTexRefSetAddress2D_v3(
    r: Handle,
    desc: *const CUDA_ARRAY_DESCRIPTOR,
    ptr: CUdeviceptr,
    pitch: usize,
) -> CUresult {
    guard(|| {
        let d = raw::get(desc)?;
        let m = Pitch2DMem {
            ptr,
            format: format(d.format)?,
            channels: d.num_channels,
            width: d.width as u64,
            height: d.height as u64,
            pitch: pitch as u64,
        };
        gpu_of(key(r))?.texref_set_address_2d(texref(r)?, m)
    })
}

/// cuTexRefSetAddress2D_v2: the CUDA 3.2 name of the same call ([`cuTexRefSetAddress2D_v3`]).
#[unsafe(no_mangle)]
pub extern "C" fn cuTexRefSetAddress2D_v2(
    r: Handle,
    desc: *const CUDA_ARRAY_DESCRIPTOR,
    ptr: CUdeviceptr,
    pitch: usize,
) -> CUresult {
    cuTexRefSetAddress2D_v3(r, desc, ptr, pitch)
}

/// cuTexRefSetFormat: used with linear-memory bindings (an array binding takes the
/// array's).
#[unsafe(no_mangle)]
pub extern "C" fn cuTexRefSetFormat(r: Handle, fmt: c_uint, channels: c_int) -> CUresult {
    update(r, |st| {
        let f = format(fmt)?;
        if !matches!(channels, 1 | 2 | 4) {
            return Err(CuError::InvalidValue);
        }
        (st.format, st.channels) = (f, channels as u32);
        Ok(())
    })
}

/// cuTexRefSetAddressMode: dimension 0, 1 or 2.
#[unsafe(no_mangle)]
pub extern "C" fn cuTexRefSetAddressMode(r: Handle, dim: c_int, mode: c_uint) -> CUresult {
    update(r, |st| {
        let slot = st.desc.address.get_mut(dim as usize).filter(|_| dim >= 0).ok_or(CuError::InvalidValue)?;
        if mode > 3 {
            return Err(CuError::InvalidValue);
        }
        *slot = mode;
        Ok(())
    })
}

/// cuTexRefSetFilterMode: point or linear.
#[unsafe(no_mangle)]
pub extern "C" fn cuTexRefSetFilterMode(r: Handle, mode: c_uint) -> CUresult {
    update(r, |st| {
        if mode > 1 {
            return Err(CuError::InvalidValue);
        }
        st.desc.filter = mode;
        Ok(())
    })
}

/// cuTexRefSetFlags: CU_TRSF_* (checked when the module next launches; sRGB is
/// NOT_SUPPORTED then).
#[unsafe(no_mangle)]
pub extern "C" fn cuTexRefSetFlags(r: Handle, flags: c_uint) -> CUresult {
    update(r, |st| {
        if flags & !TRSF_ALL != 0 {
            return Err(CuError::InvalidValue);
        }
        st.desc.flags = flags;
        Ok(())
    })
}

/// cuTexRefSetBorderColor: four floats.
#[unsafe(no_mangle)]
pub extern "C" fn cuTexRefSetBorderColor(r: Handle, color: *const f32) -> CUresult {
    guard(|| {
        let c: [f32; 4] = raw::get(color.cast())?;
        gpu_of(key(r))?.texref_update(texref(r)?, |st| {
            st.desc.border = c;
            Ok(())
        })
    })
}

/// cuTexRefSetMaxAnisotropy: kept and reported (a compute kernel's fetches have no
/// derivatives, so it has no effect).
#[unsafe(no_mangle)]
pub extern "C" fn cuTexRefSetMaxAnisotropy(r: Handle, max: c_uint) -> CUresult {
    update(r, |st| {
        st.max_anisotropy = max;
        Ok(())
    })
}

/// cuTexRefSetMipmapFilterMode: between the levels of a mipmapped binding.
#[unsafe(no_mangle)]
pub extern "C" fn cuTexRefSetMipmapFilterMode(r: Handle, mode: c_uint) -> CUresult {
    update(r, |st| {
        if mode > 1 {
            return Err(CuError::InvalidValue);
        }
        st.desc.mip_filter = mode;
        Ok(())
    })
}

/// cuTexRefSetMipmapLevelBias: added to the level of detail.
#[unsafe(no_mangle)]
pub extern "C" fn cuTexRefSetMipmapLevelBias(r: Handle, bias: f32) -> CUresult {
    update(r, |st| {
        st.desc.mip_bias = bias;
        Ok(())
    })
}

/// cuTexRefSetMipmapLevelClamp: the least and greatest level of detail.
#[unsafe(no_mangle)]
pub extern "C" fn cuTexRefSetMipmapLevelClamp(r: Handle, min: f32, max: f32) -> CUresult {
    update(r, |st| {
        st.desc.mip_clamp = [min, max];
        Ok(())
    })
}

/// cuTexRefGetAddress_v2: INVALID_VALUE unless bound to linear memory.
#[unsafe(no_mangle)]
pub extern "C" fn cuTexRefGetAddress_v2(out: *mut CUdeviceptr, r: Handle) -> CUresult {
    guard(|| match state(r, false)?.binding {
        RefBinding::Linear { ptr, .. } | RefBinding::Pitch2D { ptr, .. } => raw::put(out, ptr),
        _ => Err(CuError::InvalidValue),
    })
}

fn get_array(out: *mut Handle, r: Handle, surface: bool) -> CUresult {
    guard(|| match state(r, surface)?.binding {
        RefBinding::Array(a) => raw::put(out, handle(a)),
        _ => Err(CuError::InvalidValue),
    })
}

/// cuTexRefGetArray: INVALID_VALUE unless bound to an array.
#[unsafe(no_mangle)]
pub extern "C" fn cuTexRefGetArray(out: *mut Handle, r: Handle) -> CUresult {
    get_array(out, r, false)
}

/// cuSurfRefGetArray: INVALID_VALUE unless bound to an array.
#[unsafe(no_mangle)]
pub extern "C" fn cuSurfRefGetArray(out: *mut Handle, r: Handle) -> CUresult {
    get_array(out, r, true)
}

/// cuTexRefGetAddressMode.
#[unsafe(no_mangle)]
pub extern "C" fn cuTexRefGetAddressMode(out: *mut c_uint, r: Handle, dim: c_int) -> CUresult {
    guard(|| {
        let st = state(r, false)?;
        let m = st.desc.address.get(dim as usize).filter(|_| dim >= 0).ok_or(CuError::InvalidValue)?;
        raw::put(out, *m)
    })
}

/// cuTexRefGetFilterMode.
#[unsafe(no_mangle)]
pub extern "C" fn cuTexRefGetFilterMode(out: *mut c_uint, r: Handle) -> CUresult {
    guard(|| raw::put(out, state(r, false)?.desc.filter))
}

/// cuTexRefGetFormat: either output may be NULL.
#[unsafe(no_mangle)]
pub extern "C" fn cuTexRefGetFormat(fmt: *mut c_uint, channels: *mut c_int, r: Handle) -> CUresult {
    guard(|| {
        let st = state(r, false)?;
        if !fmt.is_null() {
            raw::put(fmt, st.format as c_uint)?;
        }
        if !channels.is_null() {
            raw::put(channels, st.channels as c_int)?;
        }
        Ok(())
    })
}

/// cuTexRefGetFlags.
#[unsafe(no_mangle)]
pub extern "C" fn cuTexRefGetFlags(out: *mut c_uint, r: Handle) -> CUresult {
    guard(|| raw::put(out, state(r, false)?.desc.flags))
}

/// cuTexRefGetBorderColor: four floats.
#[unsafe(no_mangle)]
pub extern "C" fn cuTexRefGetBorderColor(out: *mut f32, r: Handle) -> CUresult {
    guard(|| raw::put(out.cast::<[f32; 4]>(), state(r, false)?.desc.border))
}

/// cuTexRefGetMaxAnisotropy.
#[unsafe(no_mangle)]
pub extern "C" fn cuTexRefGetMaxAnisotropy(out: *mut c_int, r: Handle) -> CUresult {
    guard(|| raw::put(out, state(r, false)?.max_anisotropy as c_int))
}

/// cuTexRefGetMipmapFilterMode.
#[unsafe(no_mangle)]
pub extern "C" fn cuTexRefGetMipmapFilterMode(out: *mut c_uint, r: Handle) -> CUresult {
    guard(|| raw::put(out, state(r, false)?.desc.mip_filter))
}

/// cuTexRefGetMipmapLevelBias.
#[unsafe(no_mangle)]
pub extern "C" fn cuTexRefGetMipmapLevelBias(out: *mut f32, r: Handle) -> CUresult {
    guard(|| raw::put(out, state(r, false)?.desc.mip_bias))
}

/// cuTexRefGetMipmapLevelClamp.
#[unsafe(no_mangle)]
pub extern "C" fn cuTexRefGetMipmapLevelClamp(min: *mut f32, max: *mut f32, r: Handle) -> CUresult {
    guard(|| {
        let [lo, hi] = state(r, false)?.desc.mip_clamp;
        if max.is_null() {
            return Err(CuError::InvalidValue);
        }
        raw::put(min, lo)?;
        raw::put(max, hi)
    })
}
