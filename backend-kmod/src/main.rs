#![no_std]
#![no_main]
use core::arch::{asm, naked_asm};

fn sys_write(fd: usize, b: &[u8]) {
    unsafe { asm!("syscall", inlateout("rax") 1usize => _, in("rdi") fd, in("rsi") b.as_ptr(), in("rdx") b.len(), lateout("rcx") _, lateout("r11") _, options(nostack)); }
}
fn sys_exit(code: i32) -> ! {
    unsafe { asm!("syscall", in("rax") 231usize, in("rdi") code as usize, options(noreturn, nostack)); }
}
#[unsafe(naked)]
#[unsafe(no_mangle)]
extern "C" fn _start() -> ! {
    naked_asm!("xor ebp, ebp", "and rsp, -16", "call {m}", "ud2", m = sym kmain)
}
extern "C" fn kmain() -> ! {
    defmt::info!("hello {=u32}", 42);
    sys_exit(3)
}
static mut ENC: defmt::Encoder = defmt::Encoder::new();
#[defmt::global_logger]
struct L;
unsafe impl defmt::Logger for L {
    fn acquire() { unsafe { (*core::ptr::addr_of_mut!(ENC)).start_frame(|b| sys_write(1, b)) } }
    unsafe fn flush() {}
    unsafe fn release() { unsafe { (*core::ptr::addr_of_mut!(ENC)).end_frame(|b| sys_write(1, b)) } }
    unsafe fn write(bytes: &[u8]) { unsafe { (*core::ptr::addr_of_mut!(ENC)).write(bytes, |b| sys_write(1, b)) } }
}
defmt::timestamp!("{=u64}", 0);
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! { sys_exit(101) }
