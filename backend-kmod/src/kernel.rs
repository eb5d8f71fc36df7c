//! The image proper (x86_64-unknown-none only).

use alloc::vec;
use backend_kmod::{KernelHeap, KmodPlatform};
use core::mem::MaybeUninit;
use fake_pci::DeviceConfig;
use runtime_core::{CuError, Gpu};

#[global_allocator]
static HEAP: KernelHeap = KernelHeap::empty();

const ARENA_BYTES: usize = 96 << 20;
static mut ARENA: [MaybeUninit<u8>; ARENA_BYTES] = [MaybeUninit::uninit(); ARENA_BYTES];

/// The image's only interface to its host: console output and exit.
mod sys {
    use core::arch::asm;

    /// Write all of `bytes` to the console (fd 1).
    pub fn console(mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let n: isize;
            // SAFETY: write(2) reads `bytes.len()` bytes from a valid slice; it touches no
            // memory of ours otherwise. rcx and r11 are clobbered by `syscall`.
            unsafe {
                asm!("syscall", inlateout("rax") 1isize => n, in("rdi") 1usize, in("rsi") bytes.as_ptr(),
                     in("rdx") bytes.len(), lateout("rcx") _, lateout("r11") _, options(nostack));
            }
            if n <= 0 {
                return;
            }
            bytes = &bytes[n as usize..];
        }
    }

    /// Exit the image with `code`.
    pub fn exit(code: i32) -> ! {
        // SAFETY: exit_group(2) does not return and touches no memory.
        unsafe { asm!("syscall", in("rax") 231usize, in("rdi") code as isize, options(noreturn, nostack)) }
    }
}

/// defmt transport: rzCOBS frames to the console, one log call at a time.
mod logger {
    use core::sync::atomic::{AtomicBool, Ordering};

    static TAKEN: AtomicBool = AtomicBool::new(false);
    static ENCODER: spin::Mutex<defmt::Encoder> = spin::Mutex::new(defmt::Encoder::new());

    #[defmt::global_logger]
    struct Console;

    // SAFETY: `acquire`/`release` bracket every frame and the TAKEN flag rejects nested
    // use; the encoder is behind a spin lock, so `write` never races.
    unsafe impl defmt::Logger for Console {
        fn acquire() {
            if TAKEN.swap(true, Ordering::Acquire) {
                crate::kernel::sys::exit(102); // re-entrant logging (a panic while logging)
            }
            ENCODER.lock().start_frame(crate::kernel::sys::console);
        }
        unsafe fn flush() {}
        unsafe fn release() {
            ENCODER.lock().end_frame(crate::kernel::sys::console);
            TAKEN.store(false, Ordering::Release);
        }
        unsafe fn write(bytes: &[u8]) {
            ENCODER.lock().write(bytes, crate::kernel::sys::console);
        }
    }
}

defmt::timestamp!("{=u64}", 0);

#[unsafe(naked)]
#[unsafe(no_mangle)]
extern "C" fn _start() -> ! {
    // The host enters with rsp at argc; align it for the System V ABI and call kmain.
    core::arch::naked_asm!("xor ebp, ebp", "and rsp, -16", "call {main}", "ud2", main = sym kmain)
}

extern "C" fn kmain() -> ! {
    // SAFETY: the arena is handed out exactly once, here, before anything allocates.
    let arena: &'static mut [MaybeUninit<u8>] = unsafe { &mut *core::ptr::addr_of_mut!(ARENA) };
    HEAP.init(arena);
    defmt::info!("rgdev-kmod: heap {=usize} MiB", ARENA_BYTES >> 20);
    let code = match run() {
        Ok(()) => 0,
        Err(e) => {
            defmt::error!("rgdev-kmod: failed with CUresult {=u32}", e.code());
            1
        }
    };
    let (used, free) = HEAP.usage();
    defmt::info!("rgdev-kmod: exit {=i32} (heap used {=usize} KiB, free {=usize} KiB)", code, used >> 10, free >> 10);
    sys::exit(code)
}

fn run() -> Result<(), CuError> {
    let cfg = DeviceConfig { vram_size: 512 << 20, ..DeviceConfig::default() };
    let gpu = Gpu::probe(KmodPlatform::new(cfg))?;
    let info = gpu.info();
    defmt::info!(
        "probe: {=u16:04x}:{=u16:04x} BOOT_0 {=u32:#010x}, {=u64} MiB VRAM, {=u32} SMs",
        info.vendor,
        info.device,
        info.boot0,
        info.vram_size >> 20,
        info.sms
    );
    let ctx = gpu.ctx_create()?;
    let n = 3 << 20;
    let ptr = gpu.mem_alloc(ctx, n as u64)?;
    let mut data = vec![0u8; n];
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    for b in data.iter_mut() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
    let t0 = gpu.ptimer_ns();
    gpu.memcpy_htod(ctx, ptr, &data)?;
    let mut back = vec![0u8; n];
    gpu.memcpy_dtoh(ctx, &mut back, ptr)?;
    let dt = gpu.ptimer_ns() - t0;
    let same = back == data;
    if same {
        defmt::info!("copy round trip: {=usize} bytes identical, {=u64} ns simulated", n, dt);
    } else {
        let bad = back.iter().zip(&data).position(|(a, b)| a != b).unwrap_or(0);
        defmt::error!("copy round trip: mismatch at byte {=usize}", bad);
    }
    gpu.mem_free(ctx, ptr)?;
    gpu.ctx_destroy(ctx)?;
    let (free, total) = gpu.mem_info();
    defmt::info!("context destroyed: {=u64} of {=u64} MiB VRAM free", free >> 20, total >> 20);
    if same { Ok(()) } else { Err(CuError::Unknown) }
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    if let Some(loc) = info.location() {
        defmt::error!("panic at {=str}:{=u32}", loc.file(), loc.line());
    }
    sys::exit(101)
}
