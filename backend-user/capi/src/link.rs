//! The device linker: cuLinkCreate, cuLinkAddData, cuLinkAddFile, cuLinkComplete and
//! cuLinkDestroy over `ptx::link`. Inputs are PTX (parsed as they are added, so a syntax
//! error is reported by the call that added it); cuLinkComplete resolves `.extern`
//! functions and variables across them, compiles the one module and hands back an rgdev
//! container that cuModuleLoadData loads. The link state owns that image until
//! cuLinkDestroy, and writes the JIT logs into the caller's buffers after every call.
//!
//! Inputs other than PTX: an rgdev container is compiled code without relocations
//! (CUDA_ERROR_NOT_SUPPORTED: link its PTX); an NVIDIA cubin, fatbin, object or library
//! holds machine code for other GPUs (CUDA_ERROR_NO_BINARY_FOR_GPU); NVVM IR is not
//! supported.

use crate::enums::jit_input::*;
use crate::module::{JitOptions, resources};
use crate::state::{current, guard, handle, key, state};
use crate::{CUresult, Handle, raw};
use backend_user::CuError;
use backend_user::Result;
use runtime_core::ImageKind;
use std::ffi::c_char;
use std::ffi::c_int;
use std::ffi::c_uint;
use std::ffi::c_void;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering;

/// Link states carry this tag in their top byte (a forged or stale state is refused).
const TAG: u64 = 0x1c << 56;
static NEXT_LINK: AtomicU64 = AtomicU64::new(1);

/// One link in progress.
pub(crate) struct Link {
    inputs: Vec<ptx::Input>,
    jit: JitOptions,
    error_log: String,
    info_log: String,
    /// The linked image, once complete (the caller's `cubinOut` points into it).
    image: Option<Box<[u8]>>,
}

/// Run `f` on link state `state` without the library's lock (a link compiles), then
/// write its logs into the caller's buffers. A state is one thread's at a time, as in
/// CUDA: another thread's call meanwhile finds no such state.
fn with_link(state: Handle, f: impl FnOnce(&mut Link) -> Result<()>) -> Result<()> {
    let id = key(state);
    let mut link = self::state()?.links.remove(&id).ok_or(CuError::InvalidHandle)?;
    let r = f(&mut link);
    let logs = link.jit.write_logs(&link.error_log, &link.info_log);
    self::state()?.links.insert(id, link);
    r.and(logs)
}

/// cuLinkCreate_v2: a link state with these JIT options (their arrays stay the caller's
/// until cuLinkDestroy: the logs are written into them).
#[unsafe(no_mangle)]
pub extern "C" fn cuLinkCreate_v2(
    num_options: c_uint,
    options: *const c_int,
    values: *mut *mut c_void,
    state_out: *mut Handle,
) -> CUresult {
    guard(|| {
        current()?;
        if state_out.is_null() {
            return Err(CuError::InvalidValue);
        }
        let jit = JitOptions::read(num_options, options, values)?;
        let id = TAG | NEXT_LINK.fetch_add(1, Ordering::Relaxed);
        let link = Link { inputs: Vec::new(), jit, error_log: String::new(), info_log: String::new(), image: None };
        state()?.links.insert(id, link);
        raw::put(state_out, handle(id)).inspect_err(|_| {
            if let Ok(mut st) = state() {
                st.links.remove(&id);
            }
        })
    })
}

/// Add one input named `name` (for messages) of CUjitInputType `kind`.
fn add(link: &mut Link, kind: c_int, bytes: &[u8], name: &str) -> Result<()> {
    let refused = |link: &mut Link, e: CuError, why: &str| {
        link.error_log.push_str(&format!("rgdev link: {name}: {why}\n"));
        Err(e)
    };
    match kind {
        CU_JIT_INPUT_PTX => {
            let text = bytes.split(|&b| b == 0).next().unwrap_or_default();
            let Ok(src) = std::str::from_utf8(text) else {
                return refused(link, CuError::InvalidPtx, "not PTX text");
            };
            match ptx::parse(src) {
                Ok(module) => {
                    link.inputs.push(ptx::Input { name: name.into(), module });
                    Ok(())
                }
                Err(e) => refused(link, CuError::InvalidPtx, &e.to_string()),
            }
        }
        CU_JIT_INPUT_CUBIN | CU_JIT_INPUT_FATBINARY | CU_JIT_INPUT_OBJECT | CU_JIT_INPUT_LIBRARY => {
            match runtime_core::image_kind(bytes) {
                ImageKind::Container => {
                    refused(link, CuError::NotSupported, "an rgdev container is compiled code: link its PTX")
                }
                ImageKind::Ptx(_) => refused(link, CuError::InvalidImage, "PTX given as a binary input type"),
                _ => refused(link, CuError::NoBinaryForGpu, "machine code for NVIDIA GPUs, not rgdev's"),
            }
        }
        CU_JIT_INPUT_NVVM => refused(link, CuError::NotSupported, "NVVM IR inputs are not supported"),
        _ => Err(CuError::InvalidValue),
    }
}

/// cuLinkAddData_v2: `size` bytes of input `data` (PTX text: up to its NUL or `size`).
/// Per-input options are accepted and ignored.
#[unsafe(no_mangle)]
pub extern "C" fn cuLinkAddData_v2(
    state: Handle,
    kind: c_int,
    data: *mut c_void,
    size: usize,
    name: *const c_char,
    num_options: c_uint,
    options: *const c_int,
    values: *mut *mut c_void,
) -> CUresult {
    guard(|| {
        JitOptions::read(num_options, options, values)?;
        if size == 0 {
            return Err(CuError::InvalidValue);
        }
        let bytes = raw::bytes(data.cast_const().cast(), size)?;
        let name = if name.is_null() { "<data>" } else { raw::str(name)? };
        with_link(state, |l| add(l, kind, bytes, name))
    })
}

/// cuLinkAddFile_v2: the input in file `path` (CUDA_ERROR_FILE_NOT_FOUND if unreadable).
#[unsafe(no_mangle)]
pub extern "C" fn cuLinkAddFile_v2(
    state: Handle,
    kind: c_int,
    path: *const c_char,
    num_options: c_uint,
    options: *const c_int,
    values: *mut *mut c_void,
) -> CUresult {
    guard(|| {
        JitOptions::read(num_options, options, values)?;
        let path = raw::str(path)?;
        let bytes = std::fs::read(path).map_err(|_| CuError::FileNotFound)?;
        with_link(state, |l| add(l, kind, &bytes, path))
    })
}

/// cuLinkComplete: link and compile the inputs; `*cubin_out` points to the image (an
/// rgdev container of `*size_out` bytes), which lives until cuLinkDestroy. An unresolved
/// or multiply defined symbol is CUDA_ERROR_INVALID_IMAGE, PTX the compiler refuses
/// CUDA_ERROR_INVALID_PTX; the error log says which.
#[unsafe(no_mangle)]
pub extern "C" fn cuLinkComplete(state: Handle, cubin_out: *mut *mut c_void, size_out: *mut usize) -> CUresult {
    guard(|| {
        if cubin_out.is_null() || size_out.is_null() {
            return Err(CuError::InvalidValue);
        }
        with_link(state, |l| {
            let inputs = l.inputs.iter().map(|i| ptx::Input { name: i.name.clone(), module: i.module.clone() });
            let module = match ptx::link(inputs.collect()) {
                Ok(m) => m,
                Err(e) => {
                    l.error_log.push_str(&format!("rgdev link: {}\n", e.msg));
                    return Err(CuError::InvalidImage);
                }
            };
            let (gpu, _) = crate::state::current()?;
            let prog = ptx::compile_with(&module, &gpu.jit_options(l.jit.max_regs())).map_err(|e| {
                l.error_log.push_str(&format!("ptxas: {e}\n"));
                if e.unsupported { CuError::NotSupported } else { CuError::InvalidPtx }
            })?;
            l.info_log.push_str(&resources(&prog));
            let image = l.image.insert(prog.to_container().into_boxed_slice());
            raw::put(size_out, image.len())?;
            raw::put(cubin_out, image.as_mut_ptr().cast())
        })
    })
}

/// cuLinkDestroy: the state and its image.
#[unsafe(no_mangle)]
pub extern "C" fn cuLinkDestroy(state: Handle) -> CUresult {
    guard(|| self::state()?.links.remove(&key(state)).map(drop).ok_or(CuError::InvalidHandle))
}
