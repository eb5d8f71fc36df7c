//! Kernels compiled by clang from CUDA (kernels/*.cu -> kernels/*.ptx), JIT-compiled by the
//! runtime, executed by the compute engine, checked against CPU references.

use backend_user::{Arg, CuError, Device, StreamHandle};
use tests::Rng;

const VECADD: &str = include_str!("../../kernels/vecadd.ptx");
const REDUCE: &str = include_str!("../../kernels/reduce.ptx");

#[test]
fn vector_add_matches_the_cpu() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(VECADD).unwrap();
    let f = m.function("vecadd").unwrap();
    for n in [1usize, 31, 256, 1000, 100_003] {
        let mut rng = Rng(n as u64);
        let a: Vec<f32> = (0..n).map(|_| rng.below(1 << 20) as f32 / 7.0).collect();
        let b: Vec<f32> = (0..n).map(|_| rng.below(1 << 20) as f32 / 3.0).collect();
        let mut da = ctx.alloc::<f32>(n).unwrap();
        let mut db = ctx.alloc::<f32>(n).unwrap();
        let dc = ctx.alloc::<f32>(n).unwrap();
        da.copy_from(&a).unwrap();
        db.copy_from(&b).unwrap();
        let block = 256u32;
        let grid = (n as u32).div_ceil(block);
        f.launch([grid, 1, 1], [block, 1, 1], 0, &[da.arg(), db.arg(), dc.arg(), Arg::I32(n as i32)]).unwrap();
        let c = dc.to_vec().unwrap();
        for i in 0..n {
            assert_eq!(c[i].to_bits(), (a[i] + b[i]).to_bits(), "n {n} i {i}");
        }
    }
}

#[test]
fn reduction_with_shared_memory_barriers_and_atomics() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(REDUCE).unwrap();
    let f = m.function("reduce").unwrap();
    assert_eq!(f.attributes().shared_bytes, 1024);
    let n = 100_000usize;
    let data: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761) >> 16).collect();
    let mut din = ctx.alloc::<u32>(n).unwrap();
    let mut dout = ctx.alloc::<u32>(1).unwrap();
    din.copy_from(&data).unwrap();
    dout.copy_from(&[0]).unwrap();
    let grid = (n as u32).div_ceil(256);
    f.launch([grid, 1, 1], [256, 1, 1], 0, &[din.arg(), dout.arg(), Arg::U32(n as u32)]).unwrap();
    let expect = data.iter().fold(0u32, |s, &x| s.wrapping_add(x));
    assert_eq!(dout.to_vec().unwrap()[0], expect);
}

#[test]
fn grid_stride_reduction_with_shuffles() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(include_str!("../../kernels/reduce_sum.ptx")).unwrap();
    let f = m.function("reduce_sum").unwrap();
    for (n, grid, block) in [(1usize, 1u32, 32u32), (1000, 3, 96), (100_003, 40, 256), (1 << 20, 640, 256)] {
        let data: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761) >> 7).collect();
        let mut din = ctx.alloc::<u32>(n).unwrap();
        let mut dout = ctx.alloc::<u32>(1).unwrap();
        din.copy_from(&data).unwrap();
        dout.copy_from(&[0]).unwrap();
        f.launch([grid, 1, 1], [block, 1, 1], 0, &[din.arg(), dout.arg(), Arg::U32(n as u32)]).unwrap();
        let expect = data.iter().fold(0u32, |s, &x| s.wrapping_add(x));
        assert_eq!(dout.to_vec().unwrap()[0], expect, "n {n} grid {grid} block {block}");
    }
}

#[test]
fn launch_errors_are_cuda_errors() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(VECADD).unwrap();
    let f = m.function("vecadd").unwrap();
    let d = ctx.alloc::<f32>(16).unwrap();
    let args = [d.arg(), d.arg(), d.arg(), Arg::I32(16)];
    assert_eq!(f.launch([1, 1, 1], [1025, 1, 1], 0, &args).err(), Some(CuError::InvalidValue));
    assert_eq!(f.launch([1, 1, 1], [32, 32, 2], 0, &args).err(), Some(CuError::InvalidValue));
    assert_eq!(f.launch([0, 1, 1], [32, 1, 1], 0, &args).err(), Some(CuError::InvalidValue));
    assert_eq!(f.launch([1, 1, 1], [32, 1, 1], 64 << 10, &args).err(), Some(CuError::InvalidValue));
    assert_eq!(f.launch([1, 1, 1], [32, 1, 1], 0, &args[..3]).err(), Some(CuError::InvalidValue));
    assert_eq!(
        f.launch([1, 1, 1], [32, 1, 1], 0, &[d.arg(), d.arg(), d.arg(), Arg::U64(16)]).err(),
        Some(CuError::InvalidValue)
    );
    assert_eq!(m.function("nope").err(), Some(CuError::NotFound));
    assert_eq!(
        ctx.load_ptx(".version 6.0\n.target sm_70\n.address_size 64\n.entry k() { bogus; }").err(),
        Some(CuError::InvalidPtx)
    );
    // Grid limits by architecture: 65535 in y and z always; in x up to 2^31 - 1 from
    // compute capability 3.0 (gv100: the runtime sends the model's GRID_WIDTH), 65535 on
    // Fermi (gf100).
    assert_eq!(f.launch([1, 65536, 1], [32, 1, 1], 0, &args).err(), Some(CuError::InvalidValue));
    assert_eq!(f.launch([1u32 << 31, 1, 1], [32, 1, 1], 0, &args).err(), Some(CuError::InvalidValue));
    f.launch([65537, 1, 1], [32, 1, 1], 0, &args).unwrap();
    ctx.synchronize().unwrap();
    let k = dev.take_kernel_stats().pop().unwrap();
    assert_eq!(k.grid, [65537, 1, 1], "the device ran the whole width");
    let fermi = Device::open_with(backend_user::DeviceOptions {
        config: backend_user::DeviceConfig::preset("gf100").unwrap(),
        ..Default::default()
    })
    .unwrap();
    let fctx = fermi.create_context().unwrap();
    let fm = fctx.load_ptx(&VECADD.replace("sm_70", "sm_20")).unwrap();
    let fd = fctx.alloc::<f32>(16).unwrap();
    let fargs = [fd.arg(), fd.arg(), fd.arg(), Arg::I32(16)];
    let ff = fm.function("vecadd").unwrap();
    assert_eq!(ff.launch([65536, 1, 1], [32, 1, 1], 0, &fargs).err(), Some(CuError::InvalidValue));
    ff.launch([65535, 1, 1], [32, 1, 1], 0, &fargs).unwrap();
    fctx.synchronize().unwrap();
    // The context still works.
    f.launch([1, 1, 1], [16, 1, 1], 0, &args).unwrap();
    ctx.synchronize().unwrap();
}

#[test]
fn a_kernel_writing_outside_its_allocations_faults_in_its_context_only() {
    let dev = Device::open().unwrap();
    let good = dev.create_context().unwrap();
    let bad = dev.create_context().unwrap();
    let gm = good.load_ptx(VECADD).unwrap();
    let bm = bad.load_ptx(VECADD).unwrap();
    let d = bad.alloc::<f32>(16).unwrap();
    // c = an address nothing is mapped at.
    bm.function("vecadd")
        .unwrap()
        .launch([1, 1, 1], [32, 1, 1], 0, &[d.arg(), d.arg(), Arg::Ptr(0x7_0000_0000), Arg::I32(16)])
        .unwrap();
    assert_eq!(bad.synchronize(), Err(CuError::IllegalAddress));
    let mut a = good.alloc::<f32>(64).unwrap();
    a.copy_from(&[1.0; 64]).unwrap();
    let c = good.alloc::<f32>(64).unwrap();
    gm.function("vecadd")
        .unwrap()
        .launch([1, 1, 1], [64, 1, 1], 0, &[a.arg(), a.arg(), c.arg(), Arg::I32(64)])
        .unwrap();
    assert!(c.to_vec().unwrap().iter().all(|&x| x == 2.0));
}

const HDR: &str = ".version 6.4\n.target sm_70\n.address_size 64\n";

#[test]
fn a_kernel_that_never_ends_hits_the_watchdog() {
    use backend_user::{DeviceConfig, DeviceOptions};
    let cfg = DeviceConfig::default().with(|c| c.watchdog_cycles = 100_000);
    let dev = Device::open_with(DeviceOptions { config: cfg, ..Default::default() }).unwrap();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(&format!("{HDR}.entry spin()\n{{\nL:\n bra.uni L;\n}}\n")).unwrap();
    m.function("spin").unwrap().launch([4, 1, 1], [64, 1, 1], 0, &[]).unwrap();
    assert_eq!(ctx.synchronize(), Err(CuError::LaunchTimeout));
    // Another context on the device is unaffected.
    let other = dev.create_context().unwrap();
    let mut b = other.alloc::<u32>(4).unwrap();
    b.copy_from(&[1, 2, 3, 4]).unwrap();
    assert_eq!(b.to_vec().unwrap(), [1, 2, 3, 4]);
}

#[test]
fn traps_and_illegal_instructions_are_errors_of_the_context() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(&format!("{HDR}.entry t()\n{{\n trap;\n}}\n")).unwrap();
    m.function("t").unwrap().launch([1, 1, 1], [32, 1, 1], 0, &[]).unwrap();
    assert_eq!(ctx.synchronize(), Err(CuError::Assert));

    // A container whose code holds a garbage instruction.
    let mut prog = ptx::compile_ptx(VECADD).unwrap();
    prog.code[0].w0 = hw::isa::Word0::from(0xFFu64);
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_image(&prog.to_container()).unwrap();
    let d = ctx.alloc::<f32>(4).unwrap();
    m.function("vecadd").unwrap().launch([1, 1, 1], [4, 1, 1], 0, &[d.arg(), d.arg(), d.arg(), Arg::I32(4)]).unwrap();
    assert_eq!(ctx.synchronize(), Err(CuError::IllegalInstruction));

    // A texture reference nothing is bound to: the launch unbinds its slot, so the
    // texture unit finds no header there and stops the grid, in its own context.
    let ctx = dev.create_context().unwrap();
    let src = format!(
        "{HDR}.global .texref t;\n.entry k(.param .u64 out)\n{{\n .reg .f32 %f<6>;\n .reg .b64 %rd<2>;\n \
         ld.param.u64 %rd1, [out];\n mov.f32 %f1, 0f00000000;\n \
         tex.2d.v4.f32.f32 {{%f2, %f3, %f4, %f5}}, [t, {{%f1, %f1}}];\n st.global.f32 [%rd1], %f2;\n ret;\n}}\n"
    );
    let m = ctx.load_ptx(&src).unwrap();
    let out = ctx.alloc::<f32>(4).unwrap();
    m.function("k").unwrap().launch([1, 1, 1], [32, 1, 1], 0, &[out.arg()]).unwrap();
    assert_eq!(ctx.synchronize(), Err(CuError::IllegalAddress));
}

#[test]
fn module_images_are_recognized_by_their_bytes() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    // A precompiled container runs like the PTX it came from.
    let image = ptx::compile_ptx(VECADD).unwrap().to_container();
    let m = ctx.load_image(&image).unwrap();
    let mut a = ctx.alloc::<f32>(100).unwrap();
    a.copy_from(&[1.5; 100]).unwrap();
    let c = ctx.alloc::<f32>(100).unwrap();
    m.function("vecadd")
        .unwrap()
        .launch([1, 1, 1], [128, 1, 1], 0, &[a.arg(), a.arg(), c.arg(), Arg::I32(100)])
        .unwrap();
    assert!(c.to_vec().unwrap().iter().all(|&x| x == 3.0));
    // PTX text with a trailing NUL, as C programs pass it.
    let mut z = VECADD.as_bytes().to_vec();
    z.push(0);
    assert!(ctx.load_image(&z).is_ok());
    assert_eq!(ctx.load_image(b"\x7fELF\x02\x01\x01\0\0\0").err(), Some(CuError::NoBinaryForGpu));
    assert_eq!(ctx.load_image(&0xBA55_ED50u32.to_le_bytes()).err(), Some(CuError::NoBinaryForGpu));
    assert_eq!(ctx.load_image(b"not a module").err(), Some(CuError::InvalidImage));
    assert_eq!(ctx.load_image(&image[..image.len() - 3]).err(), Some(CuError::InvalidImage));
    assert_eq!(ctx.load_image(b".version 6.4\n.entry broken(").err(), Some(CuError::InvalidPtx));
}

#[test]
fn hand_written_nvcc_style_ptx() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(include_str!("../../kernels/handwritten/nvcc_style.ptx")).unwrap();
    let f = m.function("nvcc_style").unwrap();
    assert_eq!(f.attributes().max_threads, 128);
    let n = 100usize;
    let vin: Vec<f32> = (0..4 * n).map(|i| i as f32 * 0.5).collect();
    let mut dvin = ctx.alloc::<f32>(4 * n).unwrap();
    let dout = ctx.alloc::<u32>(16 * n).unwrap();
    dvin.copy_from(&vin).unwrap();
    assert_eq!(
        f.launch([1, 1, 1], [256, 1, 1], 0, &[dout.arg(), dvin.arg(), Arg::U32(n as u32)]).err(),
        Some(CuError::InvalidValue),
        ".maxntid 128"
    );
    f.launch([(n as u32).div_ceil(64), 1, 1], [64, 1, 1], 0, &[dout.arg(), dvin.arg(), Arg::U32(n as u32)]).unwrap();
    let out = dout.to_vec().unwrap();
    let table = [1u32, 2, 3, 5];
    let mut cas_seen = Vec::new();
    for i in 0..n {
        let o = &out[16 * i..16 * (i + 1)];
        let t = i as u32;
        let (r7, r8) = (table[(t & 3) as usize], t + 10);
        assert_eq!((o[0], o[1]), (r7, r8), "table and local stack {i}");
        let f = |k: usize| vin[4 * i + k];
        assert_eq!((f32::from_bits(o[2]), f32::from_bits(o[3])), (f(0) + f(1), f(2) + f(3)), "vectors {i}");
        let bytes = ((r7 as u64) << 32 | t as u64).to_le_bytes();
        let prmt =
            |sel: u32| (0..4).fold(0u32, |acc, k| acc | (bytes[((sel >> (4 * k)) & 7) as usize] as u32) << (8 * k));
        assert_eq!((o[4], o[5]), (prmt(0x3210), prmt(0x4567)), "prmt {i}");
        assert_eq!(o[6], (r8 >> 2) & 31, "bfe {i}");
        assert_eq!((o[7], o[8], o[9]), (r8.count_ones(), r8.leading_zeros(), t.reverse_bits()), "bits {i}");
        assert_eq!(o[10], ((((r8 as u64) << 32 | t as u64) << 4) >> 32) as u32, "shf {i}");
        assert_eq!(o[12] as u64 | (o[13] as u64) << 32, t as u64 * 1_000_000 + 7, "mad.wide {i}");
        assert_eq!(o[14], ((t & 3) != 0 && t < 50) as u32, "setp.and {i}");
        cas_seen.push(o[15]);
    }
    // Every thread incremented the counter exactly once with compare-and-swap.
    cas_seen.sort_unstable();
    assert_eq!(cas_seen, (0..n as u32).collect::<Vec<_>>());
    let (counter, size) = m.global("counter").unwrap();
    assert_eq!(size, 4);
    let mut c = [0u8; 4];
    dev.gpu().memcpy_dtoh(ctx.handle(), &mut c, counter).unwrap();
    assert_eq!(u32::from_le_bytes(c), n as u32);
}

/// Regression (issue 12): a `.func`'s `.shared` arrays were laid out from offset 0 on
/// their own and left out of the kernel's shared size, so they overlapped the kernel's.
/// PTX ISA 1.4 as nvcc 3.x emitted it (kernels/handwritten/legacy14.ptx: no
/// .address_size, `__cudaparm_` names, .u16 registers and 16-bit special registers,
/// mul24/mad24, set, `$` labels, exit) compiles and computes what the PTX ISA says.
#[test]
fn ptx_1_4_from_nvcc_3_runs() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(include_str!("../../kernels/handwritten/legacy14.ptx")).unwrap();
    let f = m.function("_Z8legacy14PiS_PKiii").unwrap();
    assert_eq!(f.attributes().shared_bytes, 1024);
    // The 24-bit product: a and b sign- (s32) or zero-extended (u32) from bit 23.
    let p24 = |a: i32, b: i32, signed: bool| -> i64 {
        let ext = |x: i32| if signed { ((x << 8) >> 8) as i64 } else { (x as u32 & 0xFF_FFFF) as i64 };
        ext(a) * ext(b)
    };
    let (n, block) = (1000usize, 128u32);
    let grid = (n as u32).div_ceil(block);
    let mut rng = Rng(14);
    let input: Vec<i32> = (0..n).map(|_| rng.below(u32::MAX as u64) as u32 as i32).collect();
    let mut din = ctx.alloc::<i32>(n).unwrap();
    din.copy_from(&input).unwrap();
    for k in [-0x12_3457i32, 0x765_4321, 3] {
        let out = ctx.alloc::<u32>(5 * n).unwrap();
        let sums = ctx.alloc::<i32>(grid as usize).unwrap();
        f.launch([grid, 1, 1], [block, 1, 1], 0, &[out.arg(), sums.arg(), din.arg(), Arg::I32(n as i32), Arg::I32(k)])
            .unwrap();
        let got = out.to_vec().unwrap();
        let mut want_sums = vec![0i32; grid as usize];
        for (i, &v) in input.iter().enumerate() {
            let lo = p24(v, k, true) as u32;
            let tid = i as u32 % block;
            let want = [
                lo,
                (p24(v, k, true) >> 16) as u32,
                (p24(v, k, false) as u32).wrapping_add(i as u32),
                if v < k { u32::MAX } else { 0 },
                tid * block,
            ];
            assert_eq!(got[5 * i..5 * i + 5], want, "k {k:#x} thread {i} v {v:#x}");
            want_sums[i / block as usize] = want_sums[i / block as usize].wrapping_add(lo as i32);
        }
        assert_eq!(sums.to_vec().unwrap(), want_sums, "k {k:#x}");
    }
}

#[test]
fn shared_arrays_of_a_kernel_and_its_functions_do_not_overlap() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(include_str!("../../kernels/handwritten/func_shared.ptx")).unwrap();
    let f = m.function("func_shared").unwrap();
    // kern_arr 128 + func_arr 128 + mod_arr 256 + other_arr 128.
    assert_eq!(f.attributes().shared_bytes, 640);
    assert_eq!(m.function("alone").unwrap().attributes().shared_bytes, 64);
    let n = 32u32;
    let out = ctx.alloc::<u32>(2 * n as usize).unwrap();
    f.launch([1, 1, 1], [n, 1, 1], 0, &[out.arg()]).unwrap();
    let got = out.to_vec().unwrap();
    for t in 0..n {
        let u = t ^ 1;
        let want = [u, (u + 1000) + (u + 3000) + (u + 5000)];
        assert_eq!(got[2 * t as usize..2 * t as usize + 2], want, "thread {t}");
    }
}

/// Kernel parameters and the grid's shape are operands read from the constant banks
/// (`c[0][...]`, the launch constants), not registers: sub-word parameters sign-extend as
/// their loads would, and a second launch of the same code with other parameters and
/// another shape reads its own values (the device keeps no constant across grids), in
/// both engine modes.
#[test]
fn parameters_and_the_grid_shape_are_constant_operands() {
    use fake_pci::config::Mode;
    let src = format!(
        "{HDR}.visible .entry k(.param .u64 out, .param .s8 a, .param .s16 b, .param .s32 c, .param .f32 f)
{{
.reg .b64 %rd<8>; .reg .b32 %r<6>; .reg .b16 %rs<3>; .reg .f32 %f<3>;
ld.param.u64 %rd1, [out];
ld.param.s8 %rs1, [a];
ld.param.s16 %rs2, [b];
ld.param.s32 %r1, [c];
ld.param.f32 %f1, [f];
mov.u32 %r2, %ntid.x;
mov.u32 %r3, %nctaid.y;
cvt.s64.s16 %rd2, %rs1;
cvt.s64.s16 %rd3, %rs2;
cvt.s64.s32 %rd4, %r1;
add.s64 %rd5, %rd2, %rd3;
add.s64 %rd5, %rd5, %rd4;
mul.lo.s32 %r4, %r2, %r3;
neg.f32 %f2, %f1;
mul.wide.s32 %rd6, %r1, %r4;
st.global.s64 [%rd1], %rd5;
st.global.u32 [%rd1+8], %r4;
st.global.f32 [%rd1+12], %f2;
st.global.s64 [%rd1+16], %rd6;
ret;
}}
"
    );
    // Only the address base is loaded into a register and no special register is read:
    // everything else is an operand (%ntid.x and %nctaid.y meet in one multiply, which
    // has one constant slot: outside any loop, one of them is moved into a register there).
    let prog = ptx::compile_ptx(&src).unwrap();
    let ops: Vec<hw::isa::Op> = prog.code.iter().map(|i| i.w0.op()).collect();
    let count = |op| ops.iter().filter(|&&o| o == op).count();
    assert!(count(hw::isa::Op::Ld) == 1 && count(hw::isa::Op::S2r) == 0, "{ops:?}");
    let consts = prog.code.iter().filter(|i| {
        i.w0.imm() != hw::isa::Imm::None && {
            let f = match i.w0.imm() {
                hw::isa::Imm::A => i.w0.a(),
                hw::isa::Imm::B => i.w0.b(),
                _ => i.w0.c(),
            };
            f != hw::isa::RZ
        }
    });
    assert!(consts.count() >= 6); // a, b, c twice, one of the shape, f
    // At most the pointer, three 64-bit sums and the shape's product live at once (and
    // the ABI's three registers).
    assert!(prog.kernels[0].regs <= 13, "{} registers", prog.kernels[0].regs);
    for mode in [Mode::Functional, Mode::Timing] {
        let dev = open_mode(mode);
        let ctx = dev.create_context().unwrap();
        let m = ctx.load_ptx(&src).unwrap();
        let f = m.function("k").unwrap();
        let out = ctx.alloc::<u32>(6).unwrap();
        for (a, b, c, x, grid, block) in
            [(-5i8, -300i16, -70_000i32, 1.5f32, [1, 3, 1], [7, 1, 1]), (100, 20_000, 9, -0.25, [2, 2, 1], [64, 2, 1])]
        {
            let (ab, bb) = ([a as u8], b.to_le_bytes());
            let args = [out.arg(), Arg::Bytes(&ab), Arg::Bytes(&bb), Arg::I32(c), Arg::F32(x)];
            f.launch(grid, block, 0, &args).unwrap();
            let got = out.to_vec().unwrap();
            let sum = a as i64 + b as i64 + c as i64;
            let wide = c as i64 * (block[0] * grid[1]) as i64;
            let want =
                [sum as u32, (sum >> 32) as u32, block[0] * grid[1], (-x).to_bits(), wide as u32, (wide >> 32) as u32];
            assert_eq!(got, want, "{mode:?}: a {a} b {b} c {c} grid {grid:?} block {block:?}");
        }
    }
}

#[test]
fn the_legacy_launch_api_places_parameter_bytes_at_offsets() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let (gpu, h) = (dev.gpu(), ctx.handle());
    let m = gpu.module_load_ptx(h, VECADD).unwrap();
    let f = gpu.module_get_function(h, m, "vecadd").unwrap();
    let n = 1000u32;
    let mut a = ctx.alloc::<f32>(n as usize).unwrap();
    a.copy_from(&vec![2.0; n as usize]).unwrap();
    let c = ctx.alloc::<f32>(n as usize).unwrap();
    assert_eq!(gpu.launch_grid(h, f, [1, 1]), Err(CuError::InvalidValue), "no block shape yet");
    gpu.func_set_block_shape(h, f, [128, 1, 1]).unwrap();
    gpu.param_set_size(h, f, 28).unwrap();
    // Each 64-bit pointer as two cuParamSeti halves, as old programs do.
    for (off, p) in [(0u32, a.device_ptr()), (8, a.device_ptr()), (16, c.device_ptr())] {
        gpu.param_set(h, f, off, &(p as u32).to_le_bytes()).unwrap();
        gpu.param_set(h, f, off + 4, &((p >> 32) as u32).to_le_bytes()).unwrap();
    }
    gpu.param_set(h, f, 24, &(n as i32).to_le_bytes()).unwrap();
    gpu.launch_grid(h, f, [n.div_ceil(128), 1]).unwrap();
    assert!(c.to_vec().unwrap().iter().all(|&x| x == 4.0));
    assert_eq!(gpu.func_set_block_shape(h, f, [2048, 1, 1]), Err(CuError::InvalidValue));
    assert_eq!(gpu.param_set(h, f, 4094, &[0; 4]), Err(CuError::InvalidValue));
    gpu.param_set_size(h, f, 8).unwrap();
    assert_eq!(gpu.launch_grid(h, f, [1, 1]), Err(CuError::InvalidValue), "parameters too short");
}

#[test]
fn blocks_are_placed_on_sms_within_per_sm_limits() {
    let dev = Device::open().unwrap();
    let sms = dev.info().sms;
    let ctx = dev.create_context().unwrap();
    let src = format!(
        "{HDR}.entry smid(.param .u64 out)\n{{\n .reg .b32 %r<3>;\n .reg .b64 %rd<4>;\n mov.u32 %r1, %smid;\n mov.u32 %r2, %ctaid.x;\n\
         ld.param.u64 %rd1, [out];\n mul.wide.u32 %rd2, %r2, 4;\n add.s64 %rd3, %rd1, %rd2;\n st.global.u32 [%rd3], %r1;\n ret;\n}}\n"
    );
    let m = ctx.load_ptx(&src).unwrap();
    let f = m.function("smid").unwrap();
    let blocks = 3 * sms;
    let out = ctx.alloc::<u32>(blocks as usize).unwrap();
    f.launch([blocks, 1, 1], [1024, 1, 1], 0, &[out.arg()]).unwrap();
    let got = out.to_vec().unwrap();
    assert_eq!(got, (0..blocks).map(|b| b % sms).collect::<Vec<_>>(), "round-robin over {sms} SMs");
    // 1024-thread blocks: two fit an SM's 2048 threads, so 3 blocks per SM take two waves.
    let (per_sm, waves) = dev.sim().lock().last_occupancy();
    assert_eq!((per_sm, waves), (2, 2));
    f.launch([blocks, 1, 1], [64, 1, 1], 0, &[out.arg()]).unwrap();
    ctx.synchronize().unwrap();
    assert_eq!(dev.sim().lock().last_occupancy(), (32, 1), "small blocks: the 32-block limit");
}

fn chain_ptx(n: usize) -> String {
    let mut s = format!(
        "{HDR}.entry chain(.param .u64 out)\n{{\n .reg .b32 %r<{n}>;\n .reg .b64 %rd<3>;\n mov.u32 %r0, %tid.x;\n"
    );
    for k in 1..n {
        s += &format!(" add.u32 %r{k}, %r{}, {k};\n", k - 1);
    }
    s += &format!(
        " ld.param.u64 %rd1, [out];\n mul.wide.u32 %rd2, %r0, 4;\n add.s64 %rd1, %rd1, %rd2;\n st.global.u32 [%rd1], %r{};\n ret;\n}}\n",
        n - 1
    );
    s
}

#[test]
fn many_short_lived_registers_share_register_numbers() {
    let src = chain_ptx(600);
    let p = ptx::compile_ptx(&src).unwrap();
    let k = p.kernel("chain").unwrap();
    assert!(k.regs < 40, "600 PTX registers, few live at once: {} device registers", k.regs);
    assert_eq!(k.spill, (0, 0));
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(&src).unwrap();
    let out = ctx.alloc::<u32>(64).unwrap();
    m.function("chain").unwrap().launch([1, 1, 1], [64, 1, 1], 0, &[out.arg()]).unwrap();
    let sum: u32 = (1..600u32).sum();
    assert_eq!(out.to_vec().unwrap(), (0..64u32).map(|t| t + sum).collect::<Vec<_>>());
}

/// `.maxnreg`, `.maxntid` with `.minnctapersm`, and ptxas's `-maxrregcount` (the compiler's
/// `Options::max_regs`) bound the registers: the kernel spills to fit and still computes
/// the same results.
#[test]
fn register_limits_are_met_by_spilling() {
    let n = 40usize;
    let plain = tests::pressure::live(n);
    let free = ptx::compile_ptx(&plain).unwrap().kernel("live").unwrap().regs;
    assert!(free > 40, "{free} registers without a limit");
    let with = |d: &str| plain.replacen(")\n{", &format!(")\n{d}\n{{"), 1);
    let opts = ptx::Options { max_regs: Some(24), ..Default::default() };
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let threads = 64usize;
    let input: Vec<u32> = (0..(threads * n) as u32).map(|i| i.wrapping_mul(2_654_435_761) >> 7).collect();
    let mut din = ctx.alloc::<u32>(input.len()).unwrap();
    din.copy_from(&input).unwrap();
    for (src, limit) in [
        (with(".maxnreg 24"), 24),
        (with(".maxntid 1024, 1, 1\n.minnctapersm 2"), 32),
        (with(".maxnreg 4"), 16), // below ptxas's lower bound: the bound
    ] {
        let k = ptx::compile_ptx(&src).unwrap().kernel("live").unwrap().clone();
        assert!(k.regs <= limit && k.regs > limit / 2, "{} registers for a limit of {limit}", k.regs);
        assert!(k.spill.0 > 0 && k.spill.1 > 0, "spills to fit: {:?}", k.spill);
        let m = ctx.load_ptx(&src).unwrap();
        let f = m.function("live").unwrap();
        assert_eq!(f.attributes().regs, k.regs);
        let dout = ctx.alloc::<u32>(threads).unwrap();
        f.launch([1, 1, 1], [threads as u32, 1, 1], 0, &[din.arg(), dout.arg()]).unwrap();
        let out = dout.to_vec().unwrap();
        for t in 0..threads {
            let want = tests::pressure::live_ref(&input[t * n..(t + 1) * n]);
            assert_eq!(out[t], want, "limit {limit}, thread {t}");
        }
    }
    let k = ptx::compile_ptx_with(&plain, &opts).unwrap().kernel("live").unwrap().clone();
    assert!(k.regs <= 24 && k.spill.0 > 0, "-maxrregcount 24: {} registers, spills {:?}", k.regs, k.spill);
}

#[test]
fn more_live_values_than_registers_spill_to_local_memory() {
    let n = 300usize;
    let src = tests::pressure::live(n);
    let p = ptx::compile_ptx(&src).unwrap();
    let k = p.kernel("live").unwrap();
    assert!(k.spill.0 > 0 && k.spill.1 > 0, "spill traffic reported: {:?}", k.spill);
    assert!(k.local_bytes >= 8 * (n as u32 - ptx::compile::MAX_REGS), "the spill depot lives in local memory");
    assert!(k.regs <= 255);
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(&src).unwrap();
    let threads = 64usize;
    let input: Vec<u32> = (0..(threads * n) as u32).map(|i| i.wrapping_mul(2_654_435_761) >> 7).collect();
    let mut din = ctx.alloc::<u32>(input.len()).unwrap();
    let dout = ctx.alloc::<u32>(threads).unwrap();
    din.copy_from(&input).unwrap();
    m.function("live").unwrap().launch([1, 1, 1], [threads as u32, 1, 1], 0, &[din.arg(), dout.arg()]).unwrap();
    let out = dout.to_vec().unwrap();
    for t in 0..threads {
        let want = tests::pressure::live_ref(&input[t * n..(t + 1) * n]);
        assert_eq!(out[t], want, "thread {t}");
    }
}

#[test]
fn kernels_read_and_write_mapped_host_memory() {
    let dev = Device::open().unwrap();
    let regions0 = dev.sim().lock().dma_regions();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(VECADD).unwrap();
    let n = 5000usize;
    let (a, b, c) =
        (ctx.alloc_host::<f32>(n).unwrap(), ctx.alloc_host::<f32>(n).unwrap(), ctx.alloc_host::<f32>(n).unwrap());
    a.write(&(0..n).map(|i| i as f32).collect::<Vec<_>>()).unwrap();
    b.write(&vec![0.5; n]).unwrap();
    // No copies: the kernel reads and writes system memory through its page tables.
    m.function("vecadd")
        .unwrap()
        .launch([(n as u32).div_ceil(256), 1, 1], [256, 1, 1], 0, &[a.arg(), b.arg(), c.arg(), Arg::I32(n as i32)])
        .unwrap();
    ctx.synchronize().unwrap();
    let got = c.to_vec().unwrap();
    assert!((0..n).all(|i| got[i] == i as f32 + 0.5));
    // Copies reach it too, and the two frees do not mix.
    let mut d = ctx.alloc::<f32>(n).unwrap();
    d.copy_from(&vec![7.0; n]).unwrap();
    let f =
        dev.gpu().memcpy(ctx.handle(), StreamHandle::DEFAULT, c.device_ptr(), d.device_ptr(), 4 * n as u64).unwrap();
    dev.gpu().fence_wait(ctx.handle(), f).unwrap();
    assert!(c.to_vec().unwrap().iter().all(|&x| x == 7.0));
    assert_eq!(dev.gpu().mem_free(ctx.handle(), c.device_ptr()), Err(CuError::InvalidValue));
    assert_eq!(dev.gpu().mem_free_host(ctx.handle(), d.device_ptr()), Err(CuError::InvalidValue));
    assert_eq!(dev.gpu().mem_alloc_host(ctx.handle(), 0).err(), Some(CuError::InvalidValue));
    // Destroying the context releases the pinned memory.
    let (_x, _y) = (ctx.alloc_host::<u8>(100).unwrap(), ctx.alloc_host::<u8>(100).unwrap());
    drop((a, b, c, d, m, _x, _y));
    drop(ctx);
    assert_eq!(dev.sim().lock().dma_regions(), regions0);
}

#[test]
fn destroying_a_context_releases_its_pinned_host_memory() {
    let dev = Device::open().unwrap();
    let gpu = dev.gpu();
    let regions0 = dev.sim().lock().dma_regions();
    let h = gpu.ctx_create().unwrap();
    let (p, mem) = gpu.mem_alloc_host(h, 3 << 20).unwrap();
    mem.write(0, &[1, 2, 3]).unwrap();
    let mut back = [0u8; 3];
    gpu.memcpy_dtoh(h, &mut back, p).unwrap();
    assert_eq!(back, [1, 2, 3]);
    assert!(dev.sim().lock().dma_regions() > regions0);
    gpu.ctx_destroy(h).unwrap();
    assert_eq!(dev.sim().lock().dma_regions(), regions0);
}

#[test]
fn a_block_that_does_not_fit_an_sm_of_the_preset_is_out_of_resources() {
    // GF100: 32768 registers per SM. A kernel holding 40 loaded values at once needs more
    // than 32 registers, so 1024 of its threads do not fit.
    let cfg = backend_user::DeviceConfig::preset("gf100").unwrap();
    let dev = Device::open_with(backend_user::DeviceOptions { config: cfg, ..Default::default() }).unwrap();
    assert_eq!(dev.info().sm.regs, 32768, "the runtime reads the SM's limits from the device");
    let ctx = dev.create_context().unwrap();
    let ptx = tests::pressure::wide();
    let m = ctx.load_ptx(&ptx).unwrap();
    let f = m.function("wide").unwrap();
    assert!(f.attributes().regs > 32, "{} registers", f.attributes().regs);
    assert!(f.attributes().max_threads < 1024 && f.attributes().max_threads >= 512);
    let d = ctx.alloc::<f32>(1024).unwrap();
    let args = [d.arg()];
    assert_eq!(f.launch([1, 1, 1], [32, 32, 1], 0, &args).err(), Some(CuError::LaunchOutOfResources));
    // Half the block fits; the context is unharmed.
    f.launch([1, 1, 1], [32, 16, 1], 0, &args).unwrap();
    ctx.synchronize().unwrap();
    // Shared memory beyond what an SM has (GF100: 48 KiB, all of it per block at most).
    let v = ctx.load_ptx(VECADD).unwrap();
    let vf = v.function("vecadd").unwrap();
    let a = [d.arg(), d.arg(), d.arg(), Arg::I32(16)];
    assert_eq!(vf.launch([1, 1, 1], [32, 1, 1], 48 << 10, &a).err(), None);
    assert_eq!(vf.launch([1, 1, 1], [32, 1, 1], (48 << 10) + 4, &a).err(), Some(CuError::InvalidValue));
}

fn open_mode(mode: fake_pci::config::Mode) -> Device {
    let config = backend_user::DeviceConfig::default().with(|c| c.mode = mode);
    Device::open_with(backend_user::DeviceOptions { config, ..Default::default() }).unwrap()
}

/// PTX loaded at run time is compiled for the device it runs on: its SM's limits and
/// occupancy rule (the ABI registers of its architecture: Fermi none beyond R0/R1, Volta on
/// two more; the budget `.maxntid` with `.minnctapersm` leave a kernel).
#[test]
fn ptx_is_compiled_for_the_device_it_loads_on() {
    let regs = |preset: &str| {
        let config = backend_user::DeviceConfig::preset(preset).unwrap();
        let dev = Device::open_with(backend_user::DeviceOptions { config, ..Default::default() }).unwrap();
        let ctx = dev.create_context().unwrap();
        let m = ctx.load_ptx(VECADD).unwrap();
        (m.function("vecadd").unwrap().attributes().regs, dev.info().sm)
    };
    let ((volta, _), (fermi, sm)) = (regs("gv100"), regs("gf100"));
    assert_eq!(volta, fermi + 2, "Volta's ABI keeps two registers above the highest one used");
    let opts = ptx::Options { sm, ..Default::default() };
    assert_eq!(fermi, ptx::compile_ptx_with(VECADD, &opts).unwrap().kernel("vecadd").unwrap().regs);
}
