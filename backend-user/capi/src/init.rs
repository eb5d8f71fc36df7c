//! Initialization, versions and error strings: cuInit, cuDriverGetVersion, cuGetErrorString,
//! cuGetErrorName.

use crate::state::{Board, STATE, STATS, State, guard, state};
use crate::{CUresult, DRIVER_VERSION, apitrace, demand, peer, profile, raw, sanitize};
use backend_user::CuError;
use backend_user::DeviceOptions;
use std::collections::HashMap;
use std::ffi::CString;
use std::ffi::c_char;
use std::ffi::c_int;
use std::ffi::c_uint;
use std::sync::Mutex;
use std::sync::OnceLock;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering;

/// cuInit: flags must be 0. Builds the simulated system once, every GPU of the system
/// `RGDEV_PRESET` names (a device preset is a system of one), each brought up at its place
/// on the buses with its ordinal, all on one clock (`RGDEV_STATS=1` prints statistics at
/// exit).
#[unsafe(no_mangle)]
pub extern "C" fn cuInit(flags: c_uint) -> CUresult {
    guard(|| {
        if flags != 0 {
            return Err(CuError::InvalidValue);
        }
        if STATE.get().is_some() {
            return Ok(());
        }
        let system = backend_user::preset::system_from_env().map_err(|e| {
            eprintln!("rgdev: {e}");
            CuError::InvalidValue
        })?;
        let checks = sanitize::mode_from_env().map_err(|name| {
            eprintln!("rgdev: RGDEV_CHECK: unknown check `{name}` (memcheck, racecheck, initcheck, synccheck, all)");
            CuError::InvalidValue
        })?;
        let output = backend_user::platform::OutputSink(std::sync::Arc::new(crate::raw::device_output));
        // RGDEV_MMIO_TRACE: every register access from the probe on, through the filter
        // RGDEV_MMIO_FILTER names, BAR1 and PRAMIN runs folded unless RGDEV_MMIO_FOLD=0.
        let mmio = std::env::var_os(profile::MMIO_TRACE).filter(|v| !v.is_empty());
        let fold = std::env::var(profile::MMIO_FOLD).map_or(true, |v| v != "0");
        let filter = backend_user::TraceFilter::parse(&std::env::var(profile::MMIO_FILTER).unwrap_or_default(), fold)
            .map_err(|e| {
            eprintln!("rgdev: {}: {e}", profile::MMIO_FILTER);
            CuError::InvalidValue
        })?;
        let opts = DeviceOptions {
            checks,
            output: Some(output),
            trace: mmio.as_ref().map(|_| profile::MMIO_LIMIT),
            trace_filter: filter,
            ..Default::default()
        };
        // Every context is replayable: a kernel touching host memory of another context
        // gets it mapped on demand, and managed memory is paged (runtime-core's `uvm`).
        let paging = std::env::var(demand::UVM_ENV).map_or(true, |v| v != "host");
        let sys = backend_user::System::open_with(system.clone(), &opts)?.with_unified_memory(paging)?;
        peer::set(sys.peers().clone());
        if let Some(u) = sys.uvm() {
            u.observe(Box::new(|what| apitrace::uvm_event(what)));
            demand::set(u.clone());
        }
        let gpus: Vec<Board> = (sys.devices().iter().zip(&system.gpus))
            .map(|(dev, config)| Board { dev: dev.clone(), config: config.clone(), primary: None, primary_flags: 0 })
            .collect();
        // A system presented as one logical GPU: the first GPU leads the others, and is
        // the one device the program sees.
        let mut gpus = gpus;
        let mut physical = Vec::new();
        if system.unified && gpus.len() > 1 {
            sys.unify()?;
            physical = gpus
                .iter()
                .map(|b| Board { dev: b.dev.clone(), config: b.config.clone(), primary: None, primary_flags: 0 })
                .collect();
            gpus.truncate(1);
        }
        let profile = profile::Profile::from_env(&crate::state::shown(&gpus, &physical), sys.uvm().cloned());
        if profile.wanted() {
            // One clock: GPU 0's stamps the host's records.
            profile::host::start(&gpus[0].dev);
        }
        let write_at_exit = profile.wanted();
        let st = State {
            gpus,
            physical,
            system,
            host: HashMap::new(),
            managed: Vec::new(),
            profile,
            buffers: HashMap::new(),
            links: HashMap::new(),
        };
        if STATE.set(Mutex::new(st)).is_ok() {
            sanitize::start(checks);
            if std::env::var_os("RGDEV_STATS").is_some() || write_at_exit || u32::from(checks) != 0 {
                // Ctrl-C still writes what is due at exit.
                raw::exit_on_interrupt();
            }
            if std::env::var_os("RGDEV_STATS").is_some() {
                raw::at_exit(print_stats);
            }
            if write_at_exit {
                raw::at_exit(write_profile);
            }
        }
        Ok(())
    })
}

extern "C" fn write_profile() {
    if let Ok(mut st) = state() {
        let st = &mut *st;
        let st = &mut *st;
        let shown = crate::state::shown(&st.gpus, &st.physical);
        st.profile.write(&shown);
    }
}

extern "C" fn print_stats() {
    if let Ok(st) = state() {
        let n = |c: &AtomicU64| c.load(Ordering::Relaxed);
        eprintln!(
            "rgdev: {} kernel launches, {} copies ({} bytes), {} ns simulated time",
            n(&STATS.launches),
            n(&STATS.copies),
            n(&STATS.copy_bytes),
            st.gpus[0].dev.time_ns()
        );
    }
}

/// cuDriverGetVersion (works before cuInit).
#[unsafe(no_mangle)]
pub extern "C" fn cuDriverGetVersion(version: *mut c_int) -> CUresult {
    guard(|| raw::put(version, DRIVER_VERSION))
}

/// Every `CUresult`'s (description, name): CUDA's words for the codes rgdev returns (from
/// `CuError`), and for the others.
pub(crate) fn error_strings() -> &'static HashMap<CUresult, (CString, CString)> {
    static T: OnceLock<HashMap<CUresult, (CString, CString)>> = OnceLock::new();
    T.get_or_init(|| {
        let s = |t: &str| CString::new(t).unwrap_or_default();
        let other = |code| crate::enums::OTHER_DESCRIPTIONS.iter().find(|&&(c, _)| c == code).map(|&(_, d)| d);
        crate::enums::result::ALL
            .iter()
            .map(|&(name, code)| {
                let text = match CuError::from_code(code as u32) {
                    Some(e) => e.description(),
                    None => other(code).unwrap_or("no error"),
                };
                (code, (s(text), s(name)))
            })
            .collect()
    })
}

/// Store error `code`'s string (`pick` chooses description or name) through `pstr`; an
/// unknown code gets CUDA_ERROR_INVALID_VALUE and NULL.
pub(crate) fn error_text(
    code: CUresult,
    pstr: *mut *const c_char,
    pick: fn(&(CString, CString)) -> &CString,
) -> CUresult {
    guard(|| match error_strings().get(&code) {
        Some(t) => raw::put(pstr, pick(t).as_ptr()),
        None => {
            raw::put(pstr, std::ptr::null())?;
            Err(CuError::InvalidValue)
        }
    })
}

/// cuGetErrorString: CUDA's text; an unknown code gets CUDA_ERROR_INVALID_VALUE and NULL.
#[unsafe(no_mangle)]
pub extern "C" fn cuGetErrorString(error: CUresult, pstr: *mut *const c_char) -> CUresult {
    error_text(error, pstr, |t| &t.0)
}

/// cuGetErrorName: `CUDA_ERROR_...`; an unknown code gets CUDA_ERROR_INVALID_VALUE and NULL.
#[unsafe(no_mangle)]
pub extern "C" fn cuGetErrorName(error: CUresult, pstr: *mut *const c_char) -> CUresult {
    error_text(error, pstr, |t| &t.1)
}
