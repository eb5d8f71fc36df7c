//! The image proper (x86_64-unknown-none only).

use alloc::vec;
use backend_kmod::{KernelHeap, KmodPlatform, UnifiedRange};
use core::mem::MaybeUninit;
use fake_pci::DeviceConfig;
use runtime_core::{CuError, Gpu, LaunchConfig, LogicalGpu, Params, StreamHandle};

#[global_allocator]
static HEAP: KernelHeap = KernelHeap::empty();

const ARENA_BYTES: usize = 256 << 20;
/// The window of the arena's addresses that is the unified range (device pointers and
/// managed memory): `[64 MiB, 128 MiB)`, where a context's address space has room
/// (`UnifiedRange::BOUNDS`); the image is linked at 4 MiB, so the arena spans it. The heap
/// is the arena above it; below it the arena is left unused.
const UVA: (usize, usize) = (64 << 20, 128 << 20);
/// Heap the board's VRAM may take: the board advertises exactly this much, and the rest of
/// the heap is the model's (caches, resident blocks, DMA rings and staging buffers).
const VRAM_BACKING: u64 = 64 << 20;
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

/// The log ring: an RTT-compatible control block (`_SEGGER_RTT`, id "SEGGER RTT") with
/// one up-channel, as defmt-rtt lays it out, so a debugger (gdb, probe-rs) attached to the
/// image or reading a memory dump finds the log. The write and read offsets are shared
/// with that external reader, so they are accessed through `volatile_register::RW`. The
/// image is also the ring's reader: after each frame it drains the ring to the console.
mod rtt {
    use core::ptr::addr_of_mut;
    use volatile_register::RW;

    const SIZE: usize = 4096;

    #[repr(C)]
    struct Up {
        name: *const u8,
        buffer: *mut u8,
        size: u32,
        write: u32,
        read: u32,
        flags: u32,
    }

    #[repr(C)]
    pub struct ControlBlock {
        id: [u8; 16],
        max_up: u32,
        max_down: u32,
        up: Up,
    }

    #[unsafe(no_mangle)]
    static mut _SEGGER_RTT: ControlBlock = ControlBlock {
        id: [0; 16],
        max_up: 1,
        max_down: 0,
        up: Up { name: core::ptr::null(), buffer: core::ptr::null_mut(), size: 0, write: 0, read: 0, flags: 0 },
    };
    static mut BUFFER: [u8; SIZE] = [0; SIZE];

    fn block() -> *mut ControlBlock {
        addr_of_mut!(_SEGGER_RTT)
    }

    fn offsets() -> (&'static RW<u32>, &'static RW<u32>) {
        // SAFETY: `write` and `read` are u32 fields of a static that lives forever; RW<u32>
        // is a transparent wrapper around a volatile cell of u32, so the casts view the
        // same memory with volatile accesses. Only the logger (serialized by its lock) and
        // external debuggers touch them.
        unsafe {
            let up = addr_of_mut!((*block()).up);
            (&*(addr_of_mut!((*up).write) as *const RW<u32>), &*(addr_of_mut!((*up).read) as *const RW<u32>))
        }
    }

    /// Fill in the control block; the id goes last so a reader never sees a half-made block.
    pub fn init() {
        // SAFETY: runs once at boot, before any logging and with nothing else running.
        unsafe {
            let cb = block();
            (*cb).up.name = c"defmt".as_ptr().cast();
            (*cb).up.buffer = addr_of_mut!(BUFFER).cast();
            (*cb).up.size = SIZE as u32;
            (*cb).up.flags = 2; // block if full: the drain below always makes room
            let id = addr_of_mut!((*cb).id);
            core::ptr::write_volatile(id, *b"SEGGER RTT\0\0\0\0\0\0");
        }
    }

    /// Append `bytes`, draining to the console whenever the ring fills.
    pub fn write(mut bytes: &[u8]) {
        let (w, r) = offsets();
        while !bytes.is_empty() {
            let (wr, rd) = (w.read() as usize, r.read() as usize);
            let free = (rd + SIZE - wr - 1) % SIZE;
            if free == 0 {
                drain();
                continue;
            }
            let n = free.min(SIZE - wr).min(bytes.len());
            // SAFETY: `wr + n <= SIZE`, so the copy stays inside BUFFER; the logger lock
            // serializes writers.
            unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), addr_of_mut!(BUFFER).cast::<u8>().add(wr), n) };
            // SAFETY: a volatile store to the write offset, after the data it publishes.
            unsafe { w.write(((wr + n) % SIZE) as u32) };
            bytes = &bytes[n..];
        }
    }

    /// Read everything the ring holds out to the console.
    pub fn drain() {
        let (w, r) = offsets();
        loop {
            let (wr, rd) = (w.read() as usize, r.read() as usize);
            if wr == rd {
                return;
            }
            let end = if wr > rd { wr } else { SIZE };
            // SAFETY: `rd..end` lies inside BUFFER and holds bytes written before `wr` was
            // published.
            let chunk = unsafe { core::slice::from_raw_parts(addr_of_mut!(BUFFER).cast::<u8>().add(rd), end - rd) };
            crate::kernel::sys::console(chunk);
            // SAFETY: a volatile store to the read offset after the bytes were consumed.
            unsafe { r.write((end % SIZE) as u32) };
        }
    }
}

/// defmt transport: rzCOBS frames into the RTT ring, one log call at a time.
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
            ENCODER.lock().start_frame(super::rtt::write);
        }
        unsafe fn flush() {
            super::rtt::drain();
        }
        unsafe fn release() {
            ENCODER.lock().end_frame(super::rtt::write);
            super::rtt::drain();
            TAKEN.store(false, Ordering::Release);
        }
        unsafe fn write(bytes: &[u8]) {
            ENCODER.lock().write(bytes, super::rtt::write);
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
    let base = arena.as_ptr() as usize;
    if base > UVA.0 || base + ARENA_BYTES < UVA.1 + (128 << 20) {
        sys::console(b"rgdev-kmod: the arena does not span the unified range\n");
        sys::exit(2);
    }
    let (_below, rest) = arena.split_at_mut(UVA.0 - base);
    let (uva, heap) = rest.split_at_mut(UVA.1 - UVA.0);
    let heap_bytes = heap.len();
    HEAP.init(heap);
    rtt::init();
    defmt::info!("rgdev-kmod: heap {=usize} MiB", heap_bytes >> 20);
    let code = match run(uva) {
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

fn run(uva: &'static mut [MaybeUninit<u8>]) -> Result<(), CuError> {
    let cfg = DeviceConfig::default().with(|c| c.board.vram_size = VRAM_BACKING);
    let gpu = Gpu::probe(KmodPlatform::new(cfg, VRAM_BACKING))?;
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
    let kernel_ok = vecadd(&gpu, ctx)?;
    let exhausted = exhaust_vram(&gpu, ctx)?;
    gpu.ctx_destroy(ctx)?;
    let (free, total) = gpu.mem_info();
    defmt::info!("context destroyed: {=u64} of {=u64} MiB VRAM free", free >> 20, total >> 20);
    drop(gpu);
    let over = overcommitted_board()?;
    let range = UnifiedRange::new(uva).ok_or(CuError::InvalidValue)?;
    let system = two_gpus(&range)?;
    let managed = managed_memory(range)?;
    if same && kernel_ok && exhausted && over && system && managed { Ok(()) } else { Err(CuError::Unknown) }
}

/// Managed memory, paged on demand by runtime-core's unified-memory service (`Uvm`, serving
/// the GPU's faults as `backend_user::System` has it serve them) as user space pages it: one pointer written by the host, doubled in place by a kernel whose
/// first touches fault and migrate the pages to the GPU, read back by the host after the
/// pages come home. The GPU's platform has unified addressing over `uva`.
fn managed_memory(range: alloc::sync::Arc<UnifiedRange>) -> Result<bool, CuError> {
    use alloc::sync::Arc;
    use core::sync::atomic::Ordering;
    use runtime_core::uvm::{ManagedKind, Uvm};
    let cfg = DeviceConfig::default().with(|c| c.board.vram_size = 16 << 20);
    let gpu = Arc::new(LogicalGpu::new(Arc::new(Gpu::probe(KmodPlatform::new(cfg, 16 << 20).with_unified(range))?)));
    let uvm: Arc<Uvm<KmodPlatform>> = Arc::new(Uvm::new(true));
    uvm.set_gpus(vec![Arc::downgrade(&gpu)], vec![vec![None]]);
    uvm.serve_faults_of(&gpu)?;
    let ctx = gpu.ctx_create()?;
    uvm.context_created(&gpu, ctx);
    let n = 1usize << 16;
    let (ptr, mem) = gpu.mem_alloc_managed(ctx, (n * 4) as u64)?;
    uvm.add_managed(&gpu, ctx, ptr, mem.clone(), ManagedKind::Alloc)?;
    let xs: alloc::vec::Vec<u8> = (0..n as u32).flat_map(|i| (i as f32 * 0.5).to_le_bytes()).collect();
    mem.write(0, &xs).map_err(|_| CuError::Unknown)?;
    let m = gpu.module_load_ptx(ctx, include_str!("../../kernels/vecadd.ptx"))?;
    let f = gpu.module_get_function(ctx, m, "vecadd")?;
    let p = ptr.to_le_bytes();
    let count = (n as i32).to_le_bytes();
    let launch = LaunchConfig::new([(n / 256) as u32, 1, 1], [256, 1, 1]);
    gpu.launch(ctx, f, &launch, Params::Args(&[&p, &p, &p, &count]))?;
    gpu.ctx_synchronize(ctx)?;
    uvm.to_host_of(0);
    let mut out = vec![0u8; n * 4];
    mem.read(0, &mut out).map_err(|_| CuError::Unknown)?;
    let ok = out.chunks_exact(4).enumerate().all(|(i, w)| f32::from_le_bytes([w[0], w[1], w[2], w[3]]) == i as f32);
    let c = uvm.counts();
    let (to_gpu, to_host) = (c.to_gpu.load(Ordering::Relaxed), c.to_host.load(Ordering::Relaxed));
    defmt::info!(
        "managed memory: {=usize} floats doubled in place {=bool}, pages to the GPU {=u64}, back to the host {=u64}",
        n,
        ok,
        to_gpu,
        to_host
    );
    gpu.module_unload(ctx, m)?;
    gpu.ctx_destroy(ctx)?;
    Ok(ok && to_gpu > 0 && to_host == to_gpu)
}

/// A system of two GPUs (the `gv100x2` preset, 16 MiB of VRAM each, behind one PCIe
/// switch): each brought up at its own place on the buses by its own instance of the
/// runtime, handles carrying its ordinal, device pointers from one unified range, both
/// stepped together by the system's machine (`KmodPlatform::system`). GPU 1 gets peer
/// access to GPU 0's memory through runtime-core's system layer (`Peers`); its copy
/// engine copies 1 MiB over the link and a kernel on it reads GPU 0's memory in place.
fn two_gpus(range: &alloc::sync::Arc<UnifiedRange>) -> Result<bool, CuError> {
    use alloc::sync::Arc;
    use runtime_core::system::Peers;
    let mut sys = fake_pci::system::SystemConfig::preset("gv100x2").ok_or(CuError::InvalidValue)?;
    for g in &mut sys.gpus {
        g.board.vram_size = 16 << 20;
    }
    let mut gpus = alloc::vec::Vec::new();
    for (i, p) in KmodPlatform::system(&sys, 16 << 20).into_iter().enumerate() {
        let p = p.with_unified(range.clone());
        gpus.push(Arc::new(LogicalGpu::new(Arc::new(Gpu::probe_as(p, i as u32)?))));
    }
    let n = sys.len();
    let reach = (0..n).map(|a| (0..n).map(|b| (a != b && sys.p2p(a, b)).then(|| sys.routing_id(b))).collect());
    let peers: Peers<KmodPlatform> = Peers::default();
    peers.set_gpus(gpus.iter().map(Arc::downgrade).collect(), reach.collect());
    let ctx: alloc::vec::Vec<_> = gpus.iter().map(|g| g.ctx_create()).collect::<Result<_, _>>()?;
    let ordinals = runtime_core::ordinal_of(ctx[0].0) == 0 && runtime_core::ordinal_of(ctx[1].0) == 1;
    let count = 1usize << 18;
    let bytes = count * 4;
    let (a, b) = (gpus[0].mem_alloc(ctx[0], bytes as u64)?, gpus[1].mem_alloc(ctx[1], bytes as u64)?);
    let data: alloc::vec::Vec<u8> = (0..count as u32).flat_map(|i| (i as f32 * 0.25).to_le_bytes()).collect();
    gpus[0].memcpy_htod(ctx[0], a, &data)?;
    peers.enable(ctx[1], ctx[0])?;
    peers.copy((b, ctx[1]), (a, ctx[0]), bytes, None, false)?;
    let mut back = vec![0u8; bytes];
    gpus[1].memcpy_dtoh(ctx[1], &mut back, b)?;
    let copied = back == data;
    // A kernel on GPU 1 adds GPU 0's vector to itself, reading it over the link.
    let c = gpus[1].mem_alloc(ctx[1], bytes as u64)?;
    let m = gpus[1].module_load_ptx(ctx[1], include_str!("../../kernels/vecadd.ptx"))?;
    let f = gpus[1].module_get_function(ctx[1], m, "vecadd")?;
    let (pa, pc, k) = (a.to_le_bytes(), c.to_le_bytes(), (count as i32).to_le_bytes());
    let launch = LaunchConfig::new([(count / 256) as u32, 1, 1], [256, 1, 1]);
    gpus[1].launch(ctx[1], f, &launch, Params::Args(&[&pa, &pa, &pc, &k]))?;
    gpus[1].ctx_synchronize(ctx[1])?;
    gpus[1].memcpy_dtoh(ctx[1], &mut back, c)?;
    let sums =
        back.chunks_exact(4).enumerate().all(|(i, w)| f32::from_le_bytes([w[0], w[1], w[2], w[3]]) == i as f32 * 0.5);
    let (read, _) = gpus[1].platform().peer_traffic();
    let (t0, t1) = (gpus[0].ptimer_ns(), gpus[1].ptimer_ns());
    defmt::info!(
        "two GPUs: {=usize} bytes GPU 0 -> GPU 1 over the link {=bool}, a kernel on GPU 1 reads GPU 0's memory {=bool}, {=u64} bytes read over the link, ordinals in handles {=bool}, clocks agree {=bool}",
        bytes,
        copied,
        sums,
        read,
        ordinals,
        t0 == t1
    );
    gpus[1].module_unload(ctx[1], m)?;
    peers.disable(ctx[1], ctx[0])?;
    for (g, c) in gpus.iter().zip(&ctx) {
        peers.forget(*c);
        g.ctx_destroy(*c)?;
    }
    Ok(copied && sums && ordinals && read >= 3 * bytes as u64)
}

/// Allocate and fill 8 MiB pieces until VRAM runs out: CUDA_ERROR_OUT_OF_MEMORY, then
/// everything is freed and allocation works again.
fn exhaust_vram(gpu: &Gpu<KmodPlatform>, ctx: runtime_core::CtxHandle) -> Result<bool, CuError> {
    const PIECE: u64 = 8 << 20;
    let mut held = alloc::vec::Vec::new();
    let e = loop {
        match gpu.mem_alloc(ctx, PIECE) {
            Ok(p) => {
                held.push(p);
                gpu.memset(ctx, StreamHandle::DEFAULT, p, runtime_core::MemsetValue::U32(0xA5A5_A5A5), PIECE / 4)?;
            }
            Err(e) => break e,
        }
    };
    gpu.ctx_synchronize(ctx)?;
    defmt::info!("VRAM exhausted after {=usize} x 8 MiB written: CUresult {=u32}", held.len(), e.code());
    for p in held {
        gpu.mem_free(ctx, p)?;
    }
    let again = gpu.mem_alloc(ctx, PIECE)?;
    gpu.mem_free(ctx, again)?;
    Ok(e == CuError::OutOfMemory)
}

/// A board that advertises more VRAM (512 MiB) than the heap may back: a 128 MiB
/// allocation succeeds, and filling it past the backing budget is CUDA_ERROR_OUT_OF_MEMORY
/// for the context (7b5e8b4 panicked in the allocator at the ninth 8 MiB memset).
fn overcommitted_board() -> Result<bool, CuError> {
    let cfg = DeviceConfig::default().with(|c| c.board.vram_size = 512 << 20);
    let gpu = Gpu::probe(KmodPlatform::new(cfg, VRAM_BACKING))?;
    let ctx = gpu.ctx_create()?;
    let big = 128u64 << 20;
    let p = gpu.mem_alloc(ctx, big)?;
    let mut r = Ok(());
    for k in 0..big / (8 << 20) {
        r = gpu
            .memset(ctx, StreamHandle::DEFAULT, p + k * (8 << 20), runtime_core::MemsetValue::U32(1), 2 << 20)
            .and_then(|_| gpu.ctx_synchronize(ctx));
        if r.is_err() {
            break;
        }
    }
    let e = r.err().map_or(0, |e| e.code());
    defmt::info!("overcommitted board: filling 128 MiB of VRAM ends in CUresult {=u32}", e);
    gpu.ctx_destroy(ctx)?;
    Ok(e == CuError::OutOfMemory.code())
}

/// Vector add from clang-compiled PTX, JIT-compiled in the kernel-side image and run on the
/// timing model; checked against the CPU.
fn vecadd(gpu: &Gpu<KmodPlatform>, ctx: runtime_core::CtxHandle) -> Result<bool, CuError> {
    let n = 1usize << 16;
    let m = gpu.module_load_ptx(ctx, include_str!("../../kernels/vecadd.ptx"))?;
    let f = gpu.module_get_function(ctx, m, "vecadd")?;
    let bytes = (n * 4) as u64;
    let (a, b, c) = (gpu.mem_alloc(ctx, bytes)?, gpu.mem_alloc(ctx, bytes)?, gpu.mem_alloc(ctx, bytes)?);
    let xs: alloc::vec::Vec<u8> = (0..n as u32).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let ys: alloc::vec::Vec<u8> = (0..n as u32).flat_map(|i| (2.0 * i as f32 + 0.5).to_le_bytes()).collect();
    gpu.memcpy_htod(ctx, a, &xs)?;
    gpu.memcpy_htod(ctx, b, &ys)?;
    let t0 = gpu.ptimer_ns();
    let args = [a.to_le_bytes(), b.to_le_bytes(), c.to_le_bytes()];
    let count = (n as i32).to_le_bytes();
    let cfg = LaunchConfig::new([(n / 256) as u32, 1, 1], [256, 1, 1]);
    gpu.launch(ctx, f, &cfg, Params::Args(&[&args[0], &args[1], &args[2], &count]))?;
    gpu.ctx_synchronize(ctx)?;
    let dt = gpu.ptimer_ns() - t0;
    let mut out = vec![0u8; n * 4];
    gpu.memcpy_dtoh(ctx, &mut out, c)?;
    let ok = out
        .chunks_exact(4)
        .enumerate()
        .all(|(i, w)| f32::from_le_bytes([w[0], w[1], w[2], w[3]]) == i as f32 + (2.0 * i as f32 + 0.5));
    if ok {
        defmt::info!("kernel vecadd: {=usize} elements correct, {=u64} ns simulated", n, dt);
    } else {
        defmt::error!("kernel vecadd: wrong result");
    }
    for p in [a, b, c] {
        gpu.mem_free(ctx, p)?;
    }
    gpu.module_unload(ctx, m)?;
    Ok(ok)
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    if let Some(loc) = info.location() {
        defmt::error!("panic at {=str}:{=u32}", loc.file(), loc.line());
    }
    sys::exit(101)
}
