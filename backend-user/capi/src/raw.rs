//! The only place this library touches memory through pointers a C program passed in,
//! and where it looks its own symbols up (`own_symbol`, for cuGetProcAddress).
//!
//! The Driver API's contract is the caller's: an output pointer points at a writable
//! object of its type, an input buffer holds the bytes it claims, a string is
//! NUL-terminated. NULL is checked here (CUDA_ERROR_INVALID_VALUE); nothing else about a
//! pointer can be checked from user space, as in NVIDIA's library. Handles (contexts,
//! modules, functions) are never dereferenced: they are keys into tables.
#![allow(unsafe_code)]

use runtime_core::{CuError, Result};
use std::ffi::{CStr, c_char, c_int, c_void};
use std::ptr;

/// Store `v` through an output pointer.
pub fn put<T>(p: *mut T, v: T) -> Result<()> {
    if p.is_null() {
        return Err(CuError::InvalidValue);
    }
    // SAFETY: non-NULL, and by the API contract it points at a writable `T`. Unaligned
    // writes are allowed so a packed caller struct cannot cause undefined behaviour here.
    unsafe { p.write_unaligned(v) };
    Ok(())
}

/// Read a value through an input pointer.
pub fn get<T: Copy>(p: *const T) -> Result<T> {
    if p.is_null() {
        return Err(CuError::InvalidValue);
    }
    // SAFETY: non-NULL, and by the API contract it points at a readable `T`.
    Ok(unsafe { p.read_unaligned() })
}

/// A NUL-terminated UTF-8 string.
pub fn str<'a>(p: *const c_char) -> Result<&'a str> {
    if p.is_null() {
        return Err(CuError::InvalidValue);
    }
    // SAFETY: non-NULL and, by the API contract, NUL-terminated and live for the call.
    unsafe { CStr::from_ptr(p) }.to_str().map_err(|_| CuError::InvalidValue)
}

/// `n` bytes the caller owns, for reading. A zero-length view of any pointer is empty.
pub fn bytes<'a>(p: *const u8, n: usize) -> Result<&'a [u8]> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() || n > isize::MAX as usize {
        return Err(CuError::InvalidValue);
    }
    // SAFETY: non-NULL; by the API contract `n` readable bytes live for the call.
    Ok(unsafe { std::slice::from_raw_parts(p, n) })
}

/// `n` bytes the caller owns, for writing.
pub fn bytes_mut<'a>(p: *mut u8, n: usize) -> Result<&'a mut [u8]> {
    if n == 0 {
        return Ok(&mut []);
    }
    if p.is_null() || n > isize::MAX as usize {
        return Err(CuError::InvalidValue);
    }
    // SAFETY: non-NULL; by the API contract `n` writable bytes live for the call and do not
    // alias memory this library holds.
    Ok(unsafe { std::slice::from_raw_parts_mut(p, n) })
}

/// Copy `n` bytes between two buffers of the caller's, which may overlap (memmove).
pub fn copy_host(dst: *mut u8, src: *const u8, n: usize) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    if dst.is_null() || src.is_null() || n > isize::MAX as usize {
        return Err(CuError::InvalidValue);
    }
    // SAFETY: non-NULL; by the API contract `n` readable bytes at `src` and `n` writable
    // bytes at `dst` live for the call; `ptr::copy` allows them to overlap.
    unsafe { std::ptr::copy(src, dst, n) };
    Ok(())
}

/// The whole 4 KiB pages holding `[p, p + n)`, seen as memory the device shares
/// (cuMemHostRegister), and the offset of `p` in them. The pages must be mapped readable,
/// and writable unless `read_only`, for the whole range (from /proc/self/maps): else
/// CUDA_ERROR_INVALID_VALUE, so that a bad pointer is an error rather than a fault in the
/// device's thread later.
pub fn host_pages(p: *mut c_void, n: usize, read_only: bool) -> Result<(std::sync::Arc<fifo::SharedMem>, usize)> {
    const PAGE: usize = 4096;
    let start = p.addr() & !(PAGE - 1);
    let end = p.addr().checked_add(n).and_then(|e| e.checked_next_multiple_of(PAGE)).ok_or(CuError::InvalidValue)?;
    if p.is_null() || n == 0 || !mapped(start, end, !read_only) {
        return Err(CuError::InvalidValue);
    }
    let base = ptr::NonNull::new(p.cast::<u8>().wrapping_sub(p.addr() - start)).ok_or(CuError::InvalidValue)?;
    // SAFETY: `base` is page-aligned and the pages up to `end` are mapped with the access
    // the device needs (checked above). They stay mapped while any byte of the program's
    // range is live, and by the API contract the program keeps that range until
    // cuMemHostUnregister, which stops the device's accesses (the context's work is
    // waited for and the pages unmapped from the device) before it returns.
    let mem = unsafe { fifo::SharedMem::borrowed(base, end - start) };
    Ok((std::sync::Arc::new(mem), p.addr() - start))
}

/// Whether `[start, end)` is mapped in this process readable (and `write`able).
fn mapped(start: usize, end: usize, write: bool) -> bool {
    let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else { return false };
    let mut at = start;
    for line in maps.lines() {
        let mut f = line.split_whitespace();
        let (Some(range), Some(perms)) = (f.next(), f.next()) else { continue };
        let Some((a, b)) = range.split_once('-') else { continue };
        let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16)) else { continue };
        let ok = perms.starts_with('r') && (!write || perms.as_bytes().get(1) == Some(&b'w'));
        // Regions are listed in address order; the range must be covered without a gap.
        if a <= at && at < b {
            if !ok {
                return false;
            }
            at = b;
            if at >= end {
                return true;
            }
        }
    }
    false
}

/// The bytes of a module image handed over by pointer only (cuModuleLoadData): an rgdev
/// container sized by its header, or NUL-terminated text. The header is read one byte at a
/// time while it still matches a container header of this version; no header byte is NUL,
/// so a string that only starts like one stops matching at or before its terminator and
/// nothing past it is read.
pub fn image<'a>(p: *const u8) -> Result<&'a [u8]> {
    if p.is_null() {
        return Err(CuError::InvalidValue);
    }
    for i in 0..ptx::container::HEADER_LEN {
        // SAFETY: bytes 0..i matched a header, which holds no NUL, so the image is not over
        // yet: byte i exists (text is NUL-terminated by contract, a container is whole).
        if !ptx::container::header_byte_ok(i, unsafe { p.add(i).read() }) {
            // Not a container of this version: NUL-terminated text (PTX, or bytes the
            // loader rejects).
            // SAFETY: NUL-terminated by contract, live for the call.
            return Ok(unsafe { CStr::from_ptr(p.cast()) }.to_bytes());
        }
    }
    // A container: its header holds the total length.
    let head = bytes(p, ptx::container::HEADER_LEN)?;
    bytes(p, ptx::container::encoded_len(head).ok_or(CuError::InvalidImage)?)
}

/// `Dl_info` of dladdr(3).
#[repr(C)]
struct DlInfo {
    fname: *const c_char,
    fbase: *mut c_void,
    sname: *const c_char,
    saddr: *mut c_void,
}

/// The address of this library's exported symbol `name`, looked up in this library (not
/// whatever the process loaded first under that name).
pub fn own_symbol(name: &str) -> Option<*mut c_void> {
    const RTLD_LAZY: c_int = 1;
    const RTLD_NOLOAD: c_int = 4;
    static HANDLE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let handle = *HANDLE.get_or_init(|| {
        let mut info =
            DlInfo { fname: ptr::null(), fbase: ptr::null_mut(), sname: ptr::null(), saddr: ptr::null_mut() };
        let me = own_symbol as *const c_void;
        // SAFETY: dladdr reads the address (of a function of this object) and fills `info`;
        // dlopen with RTLD_NOLOAD only returns an object already loaded (this one), or the
        // main program for a NULL name (this code linked into an executable).
        unsafe {
            let file = if dladdr(me, &mut info) != 0 { info.fname } else { ptr::null() };
            let h = dlopen(file, RTLD_LAZY | RTLD_NOLOAD);
            if h.is_null() { dlopen(ptr::null(), RTLD_LAZY) as usize } else { h as usize }
        }
    });
    let name = std::ffi::CString::new(name).ok()?;
    // SAFETY: a handle dlopen returned (never closed) and a NUL-terminated name.
    let f = unsafe { dlsym(handle as *mut c_void, name.as_ptr()) };
    (!f.is_null()).then_some(f)
}

/// What kernels print, written through the C library's streams (`stdout`, `stderr`), as
/// NVIDIA's driver prints it: device `printf` lands in the program's own stdout buffer, in
/// order with the program's `printf`.
pub fn device_output(to: runtime_core::platform::DeviceOutput, bytes: &[u8]) {
    // SAFETY: glibc's `stdout`/`stderr` are valid `FILE *` for the life of the process;
    // fwrite reads `bytes.len()` bytes of the live slice, and fflush takes the stream.
    unsafe {
        let f = match to {
            runtime_core::platform::DeviceOutput::Stdout => stdout,
            runtime_core::platform::DeviceOutput::Stderr => {
                fflush(stdout); // the program's earlier output first
                stderr
            }
        };
        fwrite(bytes.as_ptr().cast(), 1, bytes.len(), f);
    }
}

unsafe extern "C" {
    static mut stdout: *mut c_void;
    static mut stderr: *mut c_void;
    fn fwrite(p: *const c_void, size: usize, n: usize, f: *mut c_void) -> usize;
    fn fflush(f: *mut c_void) -> c_int;
    fn dladdr(addr: *const c_void, info: *mut DlInfo) -> c_int;
    fn dlopen(file: *const c_char, mode: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, name: *const c_char) -> *mut c_void;
    /// C library `atexit`.
    fn atexit(f: extern "C" fn()) -> std::ffi::c_int;
    /// C library `signal` (glibc: BSD semantics, the handler stays installed).
    fn signal(sig: std::ffi::c_int, handler: usize) -> usize;
    fn pipe(fds: *mut std::ffi::c_int) -> std::ffi::c_int;
    fn write(fd: std::ffi::c_int, buf: *const std::ffi::c_void, n: usize) -> isize;
    fn read(fd: std::ffi::c_int, buf: *mut std::ffi::c_void, n: usize) -> isize;
}

/// The write end of the self-pipe the signal handler writes to.
static INTERRUPT_FD: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(-1);

extern "C" fn on_signal(sig: std::ffi::c_int) {
    let fd = INTERRUPT_FD.load(std::sync::atomic::Ordering::Relaxed);
    let b = sig as u8;
    if fd >= 0 {
        // SAFETY: write(2) is async-signal-safe; `b` lives for the call.
        let _ = unsafe { write(fd, (&raw const b).cast(), 1) };
    }
}

/// On SIGINT or SIGTERM, leave through `exit(128 + signal)` so that the `atexit` handlers
/// (statistics, traces, the sanitizers' summary) still run: the handler only writes the
/// signal number to a pipe (async-signal-safe), and a thread reading it exits.
pub fn exit_on_interrupt() {
    let mut fds = [-1; 2];
    // SAFETY: `fds` has room for the two descriptors pipe(2) writes.
    if unsafe { pipe(fds.as_mut_ptr()) } != 0 {
        return;
    }
    INTERRUPT_FD.store(fds[1], std::sync::atomic::Ordering::Relaxed);
    let rd = fds[0];
    let watcher = std::thread::Builder::new().name("rgdev-signal".into()).spawn(move || {
        loop {
            let mut b = 0u8;
            // SAFETY: reads one byte into `b`, which lives for the call.
            match unsafe { read(rd, (&raw mut b).cast(), 1) } {
                1 => std::process::exit(128 + b as i32),
                0 => return,
                _ => continue, // EINTR
            }
        }
    });
    if watcher.is_ok() {
        for sig in [2, 15] {
            // SAFETY: installs a handler that only calls write(2).
            unsafe { signal(sig, on_signal as extern "C" fn(std::ffi::c_int) as usize) };
        }
    }
}

/// Run `f` when the program exits (C `atexit`), for `RGDEV_STATS`.
pub fn at_exit(f: extern "C" fn()) {
    // SAFETY: `f` is a plain function that lives as long as the library; atexit only stores
    // it. A failure to register (table full) just means no statistics are printed.
    let _ = unsafe { atexit(f) };
}

/// The pointer module under Miri (`cargo +nightly miri test -p rgdev-cuda --lib raw`):
/// inputs live in allocations of exactly their size, so a read one byte past the end is
/// reported as undefined behaviour.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_and_inputs_through_pointers() {
        let mut v = 0u64;
        put(&mut v, 7).unwrap();
        assert_eq!(get(&v), Ok(7));
        // Unaligned, inside a packed buffer.
        let mut b = [0u8; 9];
        let p = b[1..].as_mut_ptr().cast::<u64>();
        put(p, 0x0102_0304_0506_0708).unwrap();
        assert_eq!(get(p.cast_const()), Ok(0x0102_0304_0506_0708));
        assert_eq!(put(std::ptr::null_mut::<u32>(), 1), Err(CuError::InvalidValue));
        assert_eq!(get(std::ptr::null::<u32>()), Err(CuError::InvalidValue));
        assert_eq!(bytes(std::ptr::null(), 0), Ok(&[][..]));
        assert_eq!(bytes(std::ptr::null(), 1), Err(CuError::InvalidValue));
        let s = c"vecadd";
        assert_eq!(str(s.as_ptr()), Ok("vecadd"));
    }

    /// A string that starts like a container, in an allocation that ends at its NUL.
    fn exact(s: &[u8]) -> Box<[u8]> {
        let mut v = s.to_vec();
        v.push(0);
        v.into_boxed_slice()
    }

    #[test]
    fn images_are_read_up_to_their_nul_or_their_declared_length() {
        for s in [&b"RGDEVMOD"[..], b"RGDEVMOD0000", b"RGDEVMOD00000006", b"RGDEVMOD0000000600000", b"RGD", b""] {
            let b = exact(s);
            assert_eq!(image(b.as_ptr()), Ok(s), "{:?}", String::from_utf8_lossy(s));
        }
        let ptx = exact(b".version 6.4\n.target sm_70\n");
        assert_eq!(image(ptx.as_ptr()).map(<[u8]>::len), Ok(ptx.len() - 1));
        // A whole container, exactly as long as its header says.
        let src = include_str!("../../../kernels/vecadd.ptx");
        let c = ptx::compile_ptx(src).unwrap().to_container().into_boxed_slice();
        assert_eq!(image(c.as_ptr()), Ok(&c[..]));
        assert_eq!(image(std::ptr::null()), Err(CuError::InvalidValue));
    }
}
