//! The compute engine executes code it fetches from memory: garbage instruction streams
//! must end in a CUDA error for their own context (illegal instruction, address, trap,
//! timeout) or complete, never panic the device or the host. Deterministic random
//! programs go through the real path: a container with the garbage code, loaded and
//! launched like any module.

use backend_user::{Arg, CuError, Device, DeviceConfig, DeviceOptions};
use hw::isa::{Imm, Instr, Op, Ty, Word0};
use tests::Rng;

const OPS: [Op; 52] = [
    Op::Nop,
    Op::Mov,
    Op::S2r,
    Op::Add,
    Op::Sub,
    Op::Mul,
    Op::Mad,
    Op::Div,
    Op::Rem,
    Op::Min,
    Op::Max,
    Op::Abs,
    Op::Neg,
    Op::And,
    Op::Or,
    Op::Xor,
    Op::Not,
    Op::Shl,
    Op::Shr,
    Op::Selp,
    Op::Slct,
    Op::Setp,
    Op::Cvt,
    Op::Popc,
    Op::Clz,
    Op::Brev,
    Op::Bfe,
    Op::Prmt,
    Op::Shf,
    Op::Sqrt,
    Op::Rcp,
    Op::Rsqrt,
    Op::Sin,
    Op::Cos,
    Op::Ex2,
    Op::Lg2,
    Op::Tanh,
    Op::Ld,
    Op::St,
    Op::Atom,
    Op::Bra,
    Op::Call,
    Op::Ret,
    Op::Exit,
    Op::Bar,
    Op::Membar,
    Op::Shfl,
    Op::Vote,
    Op::Cvta,
    Op::Heap,
    Op::Redux,
    Op::Match,
];
const TYS: [Ty; 15] = [
    Ty::U8,
    Ty::S8,
    Ty::U16,
    Ty::S16,
    Ty::U32,
    Ty::S32,
    Ty::U64,
    Ty::S64,
    Ty::F32,
    Ty::F64,
    Ty::Pred,
    Ty::F16,
    Ty::Bf16,
    Ty::F16x2,
    Ty::Bf16x2,
];

fn random_program(rng: &mut Rng, len: usize, regs: u8) -> Vec<Instr> {
    (0..len)
        .map(|_| {
            if rng.below(20) == 0 {
                // Raw garbage, mostly undecodable.
                return Instr { w0: Word0::from(rng.next_u64()), imm: rng.next_u64() };
            }
            let reg = |rng: &mut Rng| if rng.below(8) == 0 { 255 } else { rng.below(regs as u64 + 2) as u8 };
            let mut i =
                Instr::new(OPS[rng.below(OPS.len() as u64) as usize], TYS[rng.below(TYS.len() as u64) as usize]);
            i.w0.set_dst(reg(rng));
            i.w0.set_a(reg(rng));
            i.w0.set_b(reg(rng));
            i.w0.set_c(reg(rng));
            i.w0.set_m(rng.below(512) as u16);
            i.w0.set_imm([Imm::None, Imm::A, Imm::B, Imm::C][rng.below(4) as usize]);
            if rng.below(6) == 0 {
                i.w0.set_guard(reg(rng));
                i.w0.set_guard_neg(rng.below(2) == 1);
            }
            i.imm = match rng.below(4) {
                0 => rng.below(len as u64 + 4) | rng.below(len as u64 + 4) << 32, // branch-ish targets
                1 => rng.below(64),
                2 => 0x2_0000_0000 + rng.below(1 << 16), // near real allocations
                _ => rng.next_u64(),
            };
            i
        })
        .collect()
}

#[test]
fn random_instruction_streams_never_panic_the_engine() {
    random_programs(fake_pci::config::Mode::Timing);
}

#[test]
fn random_instruction_streams_never_panic_the_functional_engine() {
    random_programs(fake_pci::config::Mode::Functional);
}

fn random_programs(mode: fake_pci::config::Mode) {
    let cfg = DeviceConfig::default().with(|c| {
        c.watchdog_cycles = 20_000;
        c.board.vram_size = 256 << 20;
        c.mode = mode
    });
    let dev = Device::open_with(DeviceOptions { config: cfg, ..Default::default() }).unwrap();
    let healthy = dev.create_context().unwrap();
    let mut template = ptx::compile_ptx(include_str!("../../kernels/vecadd.ptx")).unwrap();
    let mut rng = Rng(0xBAD_C0DE);
    let (mut ok, mut errors) = (0, 0);
    for round in 0..300 {
        let regs = 8 + rng.below(24) as u8;
        let len = 4 + rng.below(60) as usize;
        template.code = random_program(&mut rng, len, regs);
        template.kernels[0].pc = 0;
        template.kernels[0].regs = regs as u32 + rng.below(4) as u32;
        template.kernels[0].local_bytes = rng.below(64) as u32;
        template.kernels[0].shared_bytes = rng.below(256) as u32;
        template.relocs.clear();
        let ctx = dev.create_context().unwrap();
        let m = ctx.load_image(&template.to_container()).unwrap();
        let buf = ctx.alloc::<u32>(4096).unwrap();
        let f = m.function("vecadd").unwrap();
        let block = [1 + rng.below(96) as u32, 1 + rng.below(3) as u32, 1];
        let r = f
            .launch(
                [1 + rng.below(3) as u32, 1, 1],
                block,
                rng.below(64) as u32,
                &[buf.arg(), buf.arg(), buf.arg(), Arg::I32(16)],
            )
            .and_then(|_| ctx.synchronize());
        match r {
            Ok(()) => ok += 1,
            Err(
                CuError::IllegalInstruction
                | CuError::IllegalAddress
                | CuError::MisalignedAddress
                | CuError::LaunchTimeout
                | CuError::Assert
                | CuError::LaunchFailed
                | CuError::InvalidValue
                | CuError::LaunchOutOfResources,
            ) => errors += 1,
            Err(e) => panic!("round {round}: unexpected {e}"),
        }
    }
    assert!(errors > 100 && ok > 0, "{ok} completed, {errors} stopped with errors");
    // The device is still fine for everyone else.
    let mut b = healthy.alloc::<u32>(8).unwrap();
    b.copy_from(&[5; 8]).unwrap();
    assert_eq!(b.to_vec().unwrap(), [5; 8]);
}
