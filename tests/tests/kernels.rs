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
    // At most the pointer, three 64-bit sums and the shape's product live at once.
    assert!(prog.kernels[0].regs <= 10, "{} registers", prog.kernels[0].regs);
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

/// A host that simulates slowly: each YIELD runs the device for only `STEP` cycles, then
/// sleeps. Everything else is the user-space platform's.
struct SlowHost(backend_user::UserPlatform);

impl SlowHost {
    const STEP: u64 = 10_000;
    const SLEEP: std::time::Duration = std::time::Duration::from_millis(20);
}

impl runtime_core::platform::Platform for SlowHost {
    type RawMutex = parking_lot::RawMutex;
    fn log(&self, level: runtime_core::platform::Level, args: std::fmt::Arguments<'_>) {
        self.0.log(level, args)
    }
    fn yield_now(&self) -> runtime_core::platform::Activity {
        use runtime_core::platform::Activity;
        let busy = self.0.device().lock().run(Self::STEP) == fake_pci::RunState::Busy;
        std::thread::sleep(Self::SLEEP);
        if busy { Activity::Progress } else { Activity::Idle }
    }
    fn dma_alloc(&self, len: usize) -> runtime_core::Result<runtime_core::platform::DmaBuffer> {
        self.0.dma_alloc(len)
    }
    fn dma_free(&self, buf: &runtime_core::platform::DmaBuffer) {
        self.0.dma_free(buf)
    }
    fn cfg_read32(&self, off: u16) -> u32 {
        self.0.cfg_read32(off)
    }
    fn cfg_write32(&self, off: u16, value: u32) {
        self.0.cfg_write32(off, value)
    }
    fn mmio_read32(&self, addr: u64) -> u32 {
        self.0.mmio_read32(addr)
    }
    fn mmio_write32(&self, addr: u64, value: u32) {
        self.0.mmio_write32(addr, value)
    }
}

/// Regression (7b5e8b4 gave up after 10 s of host time with CUDA_ERROR_LAUNCH_TIMEOUT
/// while the kernel was healthy): a wait lasts as long as the simulation takes.
#[test]
fn a_kernel_that_takes_the_host_longer_than_ten_seconds_completes() {
    use backend_user::{ClockMode, DeviceConfig, UserPlatform};
    use runtime_core::{Gpu, LaunchConfig, MemsetValue, Params};
    let gpu = Gpu::probe(SlowHost(UserPlatform::new(DeviceConfig::default(), ClockMode::Stepped))).unwrap();
    let h = gpu.ctx_create().unwrap();
    let m = gpu.module_load_ptx(h, &format!("{HDR}{}", tests::CHAIN_PTX)).unwrap();
    let f = gpu.module_get_function(h, m, "chain").unwrap();
    let out = gpu.mem_alloc(h, 4).unwrap();
    gpu.memset(h, StreamHandle::DEFAULT, out, MemsetValue::U32(0), 1).unwrap();
    let n: u32 = 400_000;
    let mut params = out.to_le_bytes().to_vec();
    params.extend_from_slice(&n.to_le_bytes());
    let t0 = std::time::Instant::now();
    let c0 = gpu.ptimer_ns();
    gpu.launch(h, f, &LaunchConfig::new([1, 1, 1], [1, 1, 1]), Params::Buffer(&params)).unwrap();
    let mut got = [0u8; 4];
    gpu.memcpy_dtoh(h, &mut got, out).unwrap();
    let host = t0.elapsed();
    let expect = (0..n).fold(1u32, |a, _| a.wrapping_mul(3).wrapping_add(1));
    assert_eq!(u32::from_le_bytes(got), expect);
    let sim_ns = gpu.ptimer_ns() - c0;
    eprintln!("chain: {:.1} s of host time, {} us simulated", host.as_secs_f64(), sim_ns / 1000);
    assert!(host.as_secs() >= 10, "the kernel must keep the host waiting over 10 s ({host:?})");
}

/// One warp waiting for a global flag to become non-zero, then storing it.
const SPIN_ON_FLAG: &str = ".entry spin(.param .u64 flag, .param .u64 out)
{
 .reg .b32 %r<3>;
 .reg .b64 %rd<3>;
 .reg .pred %p;
 ld.param.u64 %rd1, [flag];
 ld.param.u64 %rd2, [out];
L:
 ld.volatile.global.u32 %r1, [%rd1];
 setp.eq.u32 %p, %r1, 0;
 @%p bra L;
 st.global.u32 [%rd2], %r1;
 ret;
}
";

fn open_mode(mode: fake_pci::config::Mode) -> Device {
    use backend_user::{DeviceConfig, DeviceOptions};
    Device::open_with(DeviceOptions { config: DeviceConfig::default().with(|c| c.mode = mode), ..Default::default() })
        .unwrap()
}

/// Regression (7b5e8b4: functional mode ran a whole grid inside one device step, ~15 hours
/// to the default watchdog, and timing mode took ~270 s): a spin loop that nothing will
/// ever release ends in sticky CUDA_ERROR_LAUNCH_TIMEOUT at the default preset's watchdog
/// (2e9 cycles) within seconds of host time, in both modes; another context carries on.
#[test]
fn a_kernel_spinning_forever_meets_the_default_watchdog_in_seconds() {
    use fake_pci::config::Mode;
    for mode in [Mode::Timing, Mode::Functional] {
        let dev = open_mode(mode);
        let watchdog = dev.sim().lock().config().watchdog_cycles;
        assert_eq!(watchdog, 2_000_000_000, "the default preset's watchdog");
        let other = dev.create_context().unwrap();
        let mut keep = other.alloc::<u32>(64).unwrap();
        keep.copy_from(&[5; 64]).unwrap();
        let ctx = dev.create_context().unwrap();
        let m = ctx.load_ptx(&format!("{HDR}{SPIN_ON_FLAG}")).unwrap();
        let mut flag = ctx.alloc::<u32>(1).unwrap();
        flag.copy_from(&[0]).unwrap();
        let out = ctx.alloc::<u32>(1).unwrap();
        let (c0, t0) = (dev.sim().lock().cycles(), std::time::Instant::now());
        m.function("spin").unwrap().launch([1, 1, 1], [32, 1, 1], 0, &[flag.arg(), out.arg()]).unwrap();
        assert_eq!(ctx.synchronize(), Err(CuError::LaunchTimeout), "{mode:?}");
        let host = t0.elapsed();
        let cycles = dev.sim().lock().cycles() - c0;
        eprintln!("{mode:?}: watchdog after {cycles} cycles, {:.2} s of host time", host.as_secs_f64());
        assert!(cycles > watchdog, "{mode:?}: stopped after {cycles} cycles");
        assert!(host.as_secs() < 20, "{mode:?}: {host:?} of host time");
        // Sticky, as in CUDA; the other context is untouched and keeps working.
        assert_eq!(ctx.synchronize(), Err(CuError::LaunchTimeout));
        assert_eq!(flag.to_vec().map(drop), Err(CuError::LaunchTimeout));
        assert_eq!(keep.to_vec().unwrap(), vec![5; 64]);
        keep.fill(9).unwrap();
        assert_eq!(keep.to_vec().unwrap(), vec![9; 64]);
    }
}

/// A spinning kernel is released by a write it cannot see coming: the host writes the flag
/// in pinned memory after the device has spun 1e8 cycles (stepped by hand, quantum by
/// quantum, as a waiting thread would). Skipped spinning never hides a write: the device
/// looks again every time the host enters it.
#[test]
fn a_spin_released_by_the_host_completes() {
    use fake_pci::config::Mode;
    for mode in [Mode::Timing, Mode::Functional] {
        let dev = open_mode(mode);
        let ctx = dev.create_context().unwrap();
        let m = ctx.load_ptx(&format!("{HDR}{SPIN_ON_FLAG}")).unwrap();
        let flag = ctx.alloc_host::<u32>(1).unwrap();
        flag.write(&[0]).unwrap();
        let out = ctx.alloc::<u32>(1).unwrap();
        m.function("spin").unwrap().launch([1, 1, 1], [32, 1, 1], 0, &[flag.arg(), out.arg()]).unwrap();
        {
            let mut g = dev.sim().lock();
            let c0 = g.cycles();
            while g.cycles() - c0 < 100_000_000 {
                assert_eq!(g.run(backend_user::platform::YIELD_QUANTUM), fake_pci::RunState::Busy, "{mode:?}");
            }
            assert!(g.grid_progress().1 > 0, "{mode:?}: still spinning");
        }
        flag.write(&[0xF1A6]).unwrap();
        assert_eq!(ctx.synchronize(), Ok(()), "{mode:?}");
        assert_eq!(out.to_vec().unwrap(), [0xF1A6], "{mode:?}");
    }
}

/// Functional mode runs a block's warps in turn; one that spins lets the others run
/// (7b5e8b4 let warp 0 spin until the watchdog, waiting for a flag warp 1 would set).
#[test]
fn a_warp_waiting_for_a_later_warp_completes_in_both_modes() {
    use fake_pci::config::Mode;
    let src = format!(
        "{HDR}.entry handoff(.param .u64 out)
{{
 .reg .b32 %r<4>;
 .reg .b64 %rd<2>;
 .reg .pred %p<4>;
 .shared .align 4 .u32 flag;
 ld.param.u64 %rd1, [out];
 mov.u32 %r1, %tid.x;
 setp.lt.u32 %p1, %r1, 32;
 @!%p1 bra PRODUCE;
W:
 ld.volatile.shared.u32 %r2, [flag];
 setp.eq.u32 %p2, %r2, 0;
 @%p2 bra W;
 st.global.u32 [%rd1], %r2;
 bra.uni END;
PRODUCE:
 setp.eq.u32 %p3, %r1, 32;
 @!%p3 bra END;
 mov.u32 %r3, 7;
 st.volatile.shared.u32 [flag], %r3;
END:
 ret;
}}
"
    );
    for mode in [Mode::Timing, Mode::Functional] {
        let dev = open_mode(mode);
        let ctx = dev.create_context().unwrap();
        let m = ctx.load_ptx(&src).unwrap();
        let out = ctx.alloc::<u32>(1).unwrap();
        m.function("handoff").unwrap().launch([3, 1, 1], [64, 1, 1], 0, &[out.arg()]).unwrap();
        assert_eq!(ctx.synchronize(), Ok(()), "{mode:?}");
        assert_eq!(out.to_vec().unwrap(), [7], "{mode:?}");
    }
}

/// What nvcc 11.8-12.x writes and rgdev compiles since issue 37 (hand-written in its style:
/// kernels/handwritten/nvcc12_forms.ptx): `shfl.sync` with a predicate output in each mode
/// and segment width, `bfi.b32`/`.b64` (with a field cut at the width) and `bfind`
/// (signed, unsigned, `.shiftamt`), checked against PTX's definitions.
#[test]
fn nvcc12_shuffles_with_predicates_and_bit_fields() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(include_str!("../../kernels/handwritten/nvcc12_forms.ptx")).unwrap();
    let f = m.function("nvcc12_forms").unwrap();
    let out = ctx.alloc::<u32>(12 * 32).unwrap();
    f.launch([1, 1, 1], [32, 1, 1], 0, &[out.arg()]).unwrap();
    let o = out.to_vec().unwrap();
    let v = |l: u32| l * 7;
    let bfi = |a: u64, b: u64, pos: u32, len: u32, width: u32| {
        if pos >= width || len == 0 {
            return b;
        }
        let len = len.min(width - pos);
        let mask = if len >= 64 { u64::MAX } else { ((1u64 << len) - 1) << pos };
        let r = (b & !mask) | ((a << pos) & mask);
        if width == 32 { r & 0xFFFF_FFFF } else { r }
    };
    let bfind = |x: u64, width: u32, signed: bool, shiftamt: bool| -> u32 {
        let x = if signed && (x >> (width - 1)) & 1 == 1 { !x } else { x };
        let x = if width == 32 { x & 0xFFFF_FFFF } else { x };
        if x == 0 {
            return u32::MAX;
        }
        let pos = 63 - x.leading_zeros();
        if shiftamt { width - 1 - pos } else { pos }
    };
    for l in 0..32u32 {
        let w = &o[12 * l as usize..][..12];
        let down = (l + 3 <= 31).then_some(l + 3);
        assert_eq!((w[0], w[1]), (v(down.unwrap_or(l)), down.is_some() as u32), "down {l}");
        let up = (l >= (l & !7) + 2).then(|| l - 2);
        assert_eq!((w[2], w[3]), (v(up.unwrap_or(l)), up.is_some() as u32), "up {l}");
        // segment mask 0x1c, clamp 3: a butterfly's source is valid up to (l & 0x1c) | 3
        // (PTX checks only the upper end for bfly and down, the lower for up)
        let x = l ^ 4;
        let ok = x <= ((l & 0x1C) | 3);
        assert_eq!((w[4], w[5]), (v(if ok { x } else { l }), ok as u32), "bfly {l}");
        let src = (l & 0x10) | 5;
        assert_eq!((w[6], w[7]), (v(src), 1), "idx {l}");
        assert_eq!(w[8] as u64, bfi(v(l) as u64, 0xF0F0_F0F0, l % 28, 5, 32), "bfi.b32 {l}");
        let b64 = w[10] as u64 | (w[11] as u64) << 32;
        assert_eq!(b64, bfi(v(l) as u64, 0x0123_4567_89AB_CDEF, 2 * l, 20, 64), "bfi.b64 {l}");
        let x = (v(l) as i32 - 40) as u32 as u64;
        let want = (bfind(x, 32, true, false) & 0xFF)
            | (bfind(x, 32, false, false) & 0xFF) << 8
            | (bfind(v(l) as u64, 32, false, true) & 0xFF) << 16;
        assert_eq!(w[9], want, "bfind {l}");
    }
}

/// A shared address is 32 bits wide: register plus offset wraps as the hardware wraps it
/// (kernels/handwritten/nvcc12_forms.ptx, `shared_wrap`), where it trapped out of range.
#[test]
fn shared_addresses_wrap_at_32_bits() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(include_str!("../../kernels/handwritten/nvcc12_forms.ptx")).unwrap();
    let out = ctx.alloc::<u32>(1).unwrap();
    m.function("shared_wrap").unwrap().launch([1, 1, 1], [1, 1, 1], 0, &[out.arg()]).unwrap();
    assert_eq!(out.to_vec().unwrap(), [77]);
}

/// `bar.red.popc/and/or` (what nvcc writes for `__syncthreads_count/and/or`) in a block with
/// a partial last warp, several in a row and between plain barriers, in both modes.
#[test]
fn barrier_reductions_count_the_block() {
    for functional in [false, true] {
        let mut config = backend_user::preset::load("gv100").unwrap();
        if functional {
            config.mode = fake_pci::config::Mode::Functional;
        }
        let dev = Device::open_with(backend_user::DeviceOptions { config, ..Default::default() }).unwrap();
        let ctx = dev.create_context().unwrap();
        let m = ctx.load_ptx(include_str!("../../kernels/handwritten/nvcc12_forms.ptx")).unwrap();
        let out = ctx.alloc::<u32>(5 * 100 * 2).unwrap();
        m.function("bar_red").unwrap().launch([2, 1, 1], [100, 1, 1], 0, &[out.arg()]).unwrap();
        let o = out.to_vec().unwrap();
        for t in 0..100 {
            assert_eq!(&o[5 * t..5 * t + 5], [34, 1, 0, 1, 50], "thread {t} (functional: {functional})");
        }
    }
}

/// Half precision in the PTX nvcc and cuda_fp16.h write (kernels/handwritten/half_forms.ptx):
/// scoped `.f16` registers unpacked from a pair, `setp` of pairs into `p|q`, `cvt` of two
/// floats into a pair, `min.xorsign.abs`, `.ftz`, `ex2.approx`, `fma.relu.bf16`,
/// `mul.sat`, `.f32 add.sat`, integer conversions, `neg`/`abs` of pairs, NaN forms and
/// `atom.add.noftz.f16x2` from 32 lanes, each against the value PTX defines.
#[test]
fn half_precision_ptx_forms() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(include_str!("../../kernels/handwritten/half_forms.ptx")).unwrap();
    let f = m.function("half_forms").unwrap();
    let mut out = ctx.alloc::<u32>(23).unwrap();
    out.copy_from(&[0; 23]).unwrap();
    f.launch([1, 1, 1], [32, 1, 1], 0, &[out.arg()]).unwrap();
    let o = out.to_vec().unwrap();
    let want: [u32; 23] = [
        2f32.to_bits(),
        1f32.to_bits(),
        1f32.to_bits(),
        3f32.to_bits(),
        0b10,        // low 2 < 1 false, high 1 < 3 true
        0b01,        // low 2 > 1 and true, high 1 > 3 false
        0x3E00_C000, // (1.5, -2.0): the first operand in the high half
        0x3F80_4040, // bf16 (1.0, 3.0)
        0xBC00,      // min(|-2|, |1|) with the signs' exclusive or
        0x0002_0000, // 2^-24 + 2^-24: flushed (low) and exact (high)
        0x4000,      // 2^1
        0x4020_0000, // relu(-1.5) = 0 (low), 2.5 (high)
        0x3C00,      // 3 * 2 saturated
        1f32.to_bits(),
        (-2i32) as u32,
        0x6802_7C00, // 2^40 overflows to infinity (low); 2051 rounds to even 2052 (high)
        0xBF80_4000, // neg of (-2.0, 1.0) in bf16
        0x0001_0000, // |-2^-24|: flushed (low), exact (high)
        0x3C00_4000, // 1 + 1 in .f16 registers
        0x3C00_7FFF, // max.NaN gives the canonical NaN, min the number
        0b01,        // NaN < 1: unordered true, ordered false
        u32::MAX,    // set.le.u32.f16: all ones
        0x5000_5000, // 32 lanes add (1.0, 1.0)
    ];
    for (k, (&got, &w)) in o.iter().zip(want.iter()).enumerate() {
        assert_eq!(got, w, "word {k}: {got:#x} != {w:#x}");
    }
}

/// `cvta.const` (libNVVM writes it for printf's format strings): a `.const` variable's
/// generic address reads the constant segment's bytes through generic loads, and
/// `cvta.to.const` gives the offset back for `ld.const`.
#[test]
fn cvta_const_reaches_the_constant_segment() {
    let src = r#"
.version 7.0
.target sm_70
.address_size 64
.const .align 4 .b8 pad[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
.const .align 1 .b8 $str[6] = {104, 101, 108, 108, 111, 0};
.visible .entry k(.param .u64 out)
{
    .reg .b16 %rs<4>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    cvt.u64.u32 %rd2, %r1;
    cvta.const.u64 %rd3, $str;
    add.s64 %rd4, %rd3, %rd2;
    ld.u8 %rs1, [%rd4];
    cvta.to.const.u64 %rd5, %rd4;
    ld.const.u8 %rs2, [%rd5];
    mov.u64 %rd6, pad;
    cvta.const.u64 %rd7, %rd6;
    ld.u32 %r2, [%rd7+4];
    cvt.u32.u16 %r3, %rs1;
    shl.b64 %rd2, %rd2, 3;
    add.s64 %rd1, %rd1, %rd2;
    st.global.u32 [%rd1], %r3;
    cvt.u32.u16 %r3, %rs2;
    add.s32 %r3, %r3, %r2;
    st.global.u32 [%rd1+4], %r3;
    ret;
}
"#;
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(src).unwrap();
    let f = m.function("k").unwrap();
    let out = ctx.alloc::<u32>(12).unwrap();
    f.launch([1, 1, 1], [6, 1, 1], 0, &[out.arg()]).unwrap();
    let o = out.to_vec().unwrap();
    let pad_word = u32::from_le_bytes([5, 6, 7, 8]);
    for (t, &c) in b"hello\0".iter().enumerate() {
        assert_eq!(o[2 * t], c as u32, "generic load of byte {t}");
        assert_eq!(o[2 * t + 1], (c as u32).wrapping_add(pad_word), "ld.const of byte {t}");
    }
}

/// Multi-word and warp-level integer instructions (kernels/handwritten/int_forms.ptx):
/// carry chains of 32 and 64 bits (128-bit sums and differences, 96-bit ones in words,
/// products plus wide addends through `mad.lo.cc`/`madc.hi`), `prmt`'s six modes,
/// `dp4a`/`dp2a` with each signedness, `redux.sync` of every operation over the warp and
/// over lane-dependent masks, `match.any`/`match.all.sync` with predicates, `nanosleep`,
/// each against its definition computed here.
#[test]
fn carry_chains_and_warp_integer_forms() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(include_str!("../../kernels/handwritten/int_forms.ptx")).unwrap();
    let f = m.function("int_forms").unwrap();
    let mut rng = Rng(0x37_2026);
    let mut input = vec![0u64; 4 * 32];
    for (t, w) in input.chunks_mut(4).enumerate() {
        for v in w.iter_mut() {
            *v = rng.next_u64();
        }
        // Repeats for match.any.b64; edge values for the carries.
        w[1] = 0x9E37_79B9_7F4A_7C15u64.wrapping_mul(t as u64 % 5 + 1);
        if t % 8 == 0 {
            w[0] = u64::MAX;
            w[2] = 1;
        }
    }
    let mut inp = ctx.alloc::<u64>(input.len()).unwrap();
    inp.copy_from(&input).unwrap();
    let out = ctx.alloc::<u64>(32 * 32).unwrap();
    f.launch([1, 1, 1], [32, 1, 1], 0, &[inp.arg(), out.arg()]).unwrap();
    let o = out.to_vec().unwrap();
    let lo = |v: u64| v as u32;
    let hi = |v: u64| (v >> 32) as u32;
    let prmt = |a: u32, b: u32, idx: [u32; 4]| {
        let bytes = ((b as u64) << 32 | a as u64).to_le_bytes();
        idx.iter().enumerate().fold(0u32, |r, (k, &i)| r | (bytes[i as usize & 7] as u32) << (8 * k))
    };
    let byte = |v: u32, k: u32, signed: bool| {
        let b = (v >> (8 * k)) as u8;
        if signed { b as i8 as i32 } else { b as i32 }
    };
    let half = |v: u32, k: u32, signed: bool| {
        let h = (v >> (16 * k)) as u16;
        if signed { h as i16 as i32 } else { h as i32 }
    };
    let a32: Vec<u32> = (0..32).map(|t| lo(input[4 * t])).collect();
    for t in 0..32usize {
        let (x0, x1, y0, y1) = (input[4 * t], input[4 * t + 1], input[4 * t + 2], input[4 * t + 3]);
        let w = &o[32 * t..][..32];
        let x = (x1 as u128) << 64 | x0 as u128;
        let y = (y1 as u128) << 64 | y0 as u128;
        assert_eq!((w[0], w[1]), ((x.wrapping_add(y)) as u64, (x.wrapping_add(y) >> 64) as u64), "add128 {t}");
        assert_eq!((w[2], w[3]), ((x.wrapping_sub(y)) as u64, (x.wrapping_sub(y) >> 64) as u64), "sub128 {t}");
        let m96 = (1u128 << 96) - 1;
        let (a96, b96) = (x & m96, y & m96);
        let s = a96.wrapping_add(b96) & m96;
        assert_eq!((w[4], w[5]), (s as u64, (s >> 64) as u64), "add96 {t}");
        let d = a96.wrapping_sub(b96) & m96;
        assert_eq!((w[6], w[7]), (d as u64, (d >> 64) as u64), "sub96 {t}");
        assert_eq!(w[8], (lo(x0) as u64 * lo(y0) as u64).wrapping_add(x1), "mad32 {t}");
        let p = (x0 as u128 * y0 as u128).wrapping_add((y1 as u128) << 64 | x1 as u128);
        assert_eq!((w[9], w[10]), (p as u64, (p >> 64) as u64), "mad64 {t}");
        let s = t as u32 & 3;
        let modes: [[u32; 4]; 6] = [
            [s, s + 1, s + 2, s + 3],
            [s, (s + 7) & 7, (s + 6) & 7, (s + 5) & 7],
            [s; 4],
            [s, s.max(1), s.max(2), 3],
            [0, s.min(1), s.min(2), s],
            [2 * (s & 1), 2 * (s & 1) + 1, 2 * (s & 1), 2 * (s & 1) + 1],
        ];
        for (k, idx) in modes.iter().enumerate() {
            assert_eq!(w[11 + k] as u32, prmt(lo(x0), hi(x0), *idx), "prmt mode {} lane {t}", k + 1);
        }
        let (a, b, c) = (lo(x1), lo(y1), hi(x1));
        let dp4 = |sa, sb| (0..4).fold(c as i32, |acc: i32, k| acc.wrapping_add(byte(a, k, sa) * byte(b, k, sb)));
        assert_eq!(w[17] as u32, dp4(false, false) as u32, "dp4a.u32.u32 {t}");
        assert_eq!(w[18] as u32, dp4(true, true) as u32, "dp4a.s32.s32 {t}");
        let dp2 = |sa, sb, first| {
            (0..2).fold(c as i32, |acc: i32, k| acc.wrapping_add(half(a, k, sa) * byte(b, first + k, sb)))
        };
        assert_eq!(w[19] as u32, dp2(true, false, 0) as u32, "dp2a.lo.s32.u32 {t}");
        assert_eq!(w[20] as u32, dp2(false, true, 2) as u32, "dp2a.hi.u32.s32 {t}");
        let all = a32.iter();
        assert_eq!(w[21] as u32, all.clone().fold(0u32, |s, &v| s.wrapping_add(v)), "redux add");
        assert_eq!(w[22] as u32, all.clone().map(|&v| v as i32).min().unwrap() as u32, "redux min.s32");
        assert_eq!(w[23] as u32, *all.clone().max().unwrap(), "redux max.u32");
        assert_eq!(w[24] as u32, all.clone().fold(u32::MAX, |s, &v| s & v), "redux and");
        assert_eq!(w[25] as u32, all.clone().fold(0, |s, &v| s | v), "redux or");
        assert_eq!(w[26] as u32, all.clone().fold(0, |s, &v| s ^ v), "redux xor");
        let parity: u32 =
            a32.iter().enumerate().filter(|(j, _)| j % 2 == t % 2).fold(0, |s, (_, &v)| s.wrapping_add(v));
        assert_eq!(w[27] as u32, parity, "redux over lanes of parity {t}");
        let any = (0..32).filter(|j| j % 3 == t % 3).fold(0u32, |m, j| m | 1 << j);
        assert_eq!(w[28] as u32, any, "match.any {t}");
        let group = 0xFFu64 << (8 * (t / 8));
        assert_eq!(w[29], group | 1 << 32, "match.all of equal values {t}");
        assert_eq!(w[30], 0, "match.all of unequal values {t}");
        let any64 = (0..32).filter(|j| j % 5 == t % 5).fold(0u32, |m, j| m | 1 << j);
        assert_eq!(w[31] as u32, any64, "match.any.b64 {t}");
    }
}

/// Indirect branches and calls (kernels/handwritten/indirect.ptx, written as nvcc writes
/// them): a switch through `brx.idx`, calls through a table of function addresses
/// initialized at module scope (as a vtable is), through a `.calltargets` list, guarded
/// (and a guarded direct call),
/// and from a function that itself calls through a pointer; each lane's result against
/// the C++ it stands for. A pointer that is no function's address is CUDA_ERROR_INVALID_PC.
#[test]
fn indirect_branches_and_calls_through_function_pointers() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(include_str!("../../kernels/handwritten/indirect.ptx")).unwrap();
    let out = ctx.alloc::<u32>(64 * 4).unwrap();
    m.function("indirect").unwrap().launch([1, 1, 1], [64, 1, 1], 0, &[out.arg()]).unwrap();
    let o = out.to_vec().unwrap();
    let ops = [|t: u32| 2 * t, |t: u32| t * t, |t: u32| 2 * t + 7];
    for t in 0..64u32 {
        let w = &o[4 * t as usize..][..4];
        let switch = [100, 201, t + 300, 403, 5 * t][t as usize % 5];
        assert_eq!(w[0], switch, "brx.idx, lane {t}");
        assert_eq!(w[1], ops[t as usize % 3](t), "call through the table, lane {t}");
        assert_eq!(w[2], if t % 2 == 0 { t * t } else { 2 * t + 7 }, ".calltargets, lane {t}");
        let guarded = if t < 16 {
            ops[t as usize % 3](t)
        } else if t >= 48 {
            t * t
        } else {
            1000
        };
        assert_eq!(w[3], guarded, "guarded calls, lane {t}");
    }
    let mut wild = ctx.alloc::<u64>(1).unwrap();
    wild.copy_from(&[0x1234]).unwrap();
    m.function("wild").unwrap().launch([1, 1, 1], [32, 1, 1], 0, &[wild.arg()]).unwrap();
    assert_eq!(ctx.synchronize(), Err(CuError::InvalidPc));
}

/// A device function reading its by-value struct parameter through the parameter's address
/// (clang-14's form) and `bar.warp.sync` with a mask in a register as a warp barrier, not a
/// block barrier: half-warp tree sums in shared memory while the block's other warp waits
/// at `bar.sync`; registers declared in a `{ }` scope are the scope's own, even named as a
/// module variable or a register outside (kernels/handwritten/param_address.ptx).
#[test]
fn parameter_addresses_warp_barriers_and_scoped_registers() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(include_str!("../../kernels/handwritten/param_address.ptx")).unwrap();
    let out = ctx.alloc::<u32>(64 * 4).unwrap();
    m.function("param_address").unwrap().launch([1, 1, 1], [64, 1, 1], 0, &[out.arg()]).unwrap();
    let o = out.to_vec().unwrap();
    for t in 0..64u32 {
        let w = &o[4 * t as usize..][..4];
        assert_eq!(w[0], 3 * t + 107, "struct parameter by address, thread {t}");
        let half = if t % 32 < 16 { 120 } else { 376 };
        assert_eq!(w[1], half, "half-warp sum, thread {t}");
        assert_eq!(w[2], 77 + t, "module variable named as a scoped register, thread {t}");
        assert_eq!(w[3], 1099, "a scope's own registers, thread {t}");
    }
}

/// Conversions with `.relu` and `.satfinite`, to TensorFloat-32 with each rounding,
/// `tanh.approx` of f32 and half types, `set` of half pairs (kernels/handwritten/cvt_forms.ptx), on
/// values that reach each rule: negatives, zeros of both signs, values past half's and
/// bfloat16's range, infinities, NaN, subnormals and tf32 ties.
#[test]
fn relu_satfinite_tf32_tanh_and_half_pair_set() {
    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let m = ctx.load_ptx(include_str!("../../kernels/handwritten/cvt_forms.ptx")).unwrap();
    let mut input: Vec<f32> = vec![
        0.3,
        -0.3,
        0.0,
        -0.0,
        1.5,
        -2.75,
        70000.0,
        -70000.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        3.0e38,
        -3.0e38,
        f32::MAX,
        1.0e-40,
        -1.0e-40,
        f32::from_bits(0x3F80_1000), // a tf32 tie: even below, away above
        f32::from_bits(0x3F80_3000), // a tf32 tie: even and away above
        f32::from_bits(0xBF80_1000),
        f32::from_bits(0x3F80_0FFF),
        f32::from_bits(0x7F7F_F000), // rounds past tf32's largest value
        0.5,
        65504.0,
        65520.0, // rounds to half's infinity
    ];
    let mut rng = Rng(0x37_cafe);
    while input.len() < 64 {
        input.push(f32::from_bits(rng.next_u64() as u32 & 0xC7FF_FFFF));
    }
    let mut inp = ctx.alloc::<f32>(64).unwrap();
    inp.copy_from(&input).unwrap();
    let out = ctx.alloc::<u32>(64 * 16).unwrap();
    m.function("cvt_forms").unwrap().launch([1, 1, 1], [64, 1, 1], 0, &[inp.arg(), out.arg()]).unwrap();
    let o = out.to_vec().unwrap();
    // bfloat16 to nearest even, from the bits (NaN: the canonical 0x7FFF).
    let bf16 = |x: f32| {
        let b = x.to_bits();
        if x.is_nan() { 0x7FFF } else { (b + 0x7FFF + (b >> 16 & 1)) >> 16 }
    };
    let relu = |h: u32, exp: u32| {
        if h & 0x7FFF > exp {
            0x7FFF
        } else if h & 0x8000 != 0 {
            0
        } else {
            h
        }
    };
    let satfinite = |h: u32, exp: u32| if h & 0x7FFF == exp { (h & 0x8000) | (exp - 1) } else { h };
    // tf32 by arithmetic: |x| in units of its last tf32 place, rounded.
    let tf32 = |x: f32, mode: &str, sat: bool, relu: bool| -> u32 {
        if x.is_nan() {
            return 0x7FFF_FFFF;
        }
        let mut r = if x.is_infinite() {
            x
        } else {
            let a = (x as f64).abs();
            let e = if a == 0.0 { -126 } else { a.log2().floor() as i32 }.max(-126);
            let ulp = 2f64.powi(e - 10);
            let q = a / ulp;
            let q = match mode {
                "rz" => q.trunc(),
                "rn" if q.fract() == 0.5 => q.trunc() + (q.trunc() % 2.0),
                _ => (q + 0.5).floor(),
            };
            let v = (q * ulp) as f32;
            if x.is_sign_negative() { -v } else { v }
        };
        if sat && r.is_infinite() {
            r = f32::from_bits(r.to_bits() & 0x8000_0000 | 0x7F7F_E000);
        }
        if relu && r.is_sign_negative() {
            r = 0.0;
        }
        r.to_bits()
    };
    let h16 = |h: u32| {
        // A binary16 value as f32 (finite values and infinities only).
        let (s, e, f) = (h >> 15, (h >> 10) & 31, h & 1023);
        let v = if e == 0 {
            f as f32 * 2f32.powi(-24)
        } else if e == 31 {
            f32::INFINITY
        } else {
            (1024 + f) as f32 * 2f32.powi(e as i32 - 25)
        };
        if s == 1 { -v } else { v }
    };
    // tanh.approx of half types, within a unit in the last place of each format.
    let halves = ctx.alloc::<u32>(64 * 2).unwrap();
    m.function("tanh_halves").unwrap().launch([1, 1, 1], [64, 1, 1], 0, &[inp.arg(), halves.arg()]).unwrap();
    let th = halves.to_vec().unwrap();
    for (t, &x) in input.iter().enumerate() {
        let (h, b) = (o[16 * t], bf16(x));
        let close = |got: f64, want: f64, ulp: f64| got == want || (got - want).abs() <= want.abs().max(1e-30) * ulp;
        let bfv = |v: u32| f32::from_bits(v << 16) as f64;
        if h & 0x7FFF <= 0x7C00 {
            let want = (h16(h) as f64).tanh();
            assert!(close(h16(th[2 * t]) as f64, want, 2f64.powi(-10)), "tanh.approx.f16 of {x:e}: {:#x}", th[2 * t]);
        }
        if !x.is_nan() {
            let (lo, hi) = (th[2 * t + 1] & 0xFFFF, th[2 * t + 1] >> 16);
            assert!(close(bfv(hi), bfv(b).tanh(), 2f64.powi(-7)), "tanh.approx.bf16x2 high of {x:e}");
            assert!(close(bfv(lo), (-bfv(b)).tanh(), 2f64.powi(-7)), "tanh.approx.bf16x2 low of {x:e}");
        }
    }
    for (t, &x) in input.iter().enumerate() {
        let w = &o[16 * t..][..16];
        let plain = w[0];
        assert_eq!(w[1], relu(plain, 0x7C00), "cvt.rn.relu.f16.f32 of {x:e}");
        assert_eq!(w[2], if x.is_nan() { 0x7FFF } else { satfinite(plain, 0x7C00) }, "satfinite.f16 of {x:e}");
        assert_eq!(w[3], relu(satfinite(plain, 0x7C00), 0x7C00), "relu.satfinite.f16 of {x:e}");
        assert_eq!(w[4], bf16(x), "cvt.rn.bf16.f32 of {x:e}");
        assert_eq!(w[5], relu(bf16(x), 0x7F80), "relu.bf16 of {x:e}");
        assert_eq!(w[6], if x.is_nan() { 0x7FFF } else { satfinite(bf16(x), 0x7F80) }, "satfinite.bf16 of {x:e}");
        // The pair: high half from x, low half from -x, each through relu.
        assert_eq!(w[7] >> 16, relu(plain, 0x7C00), "relu.f16x2 high of {x:e}");
        assert_eq!(w[7] & 0xFFFF, relu(plain ^ if x.is_nan() { 0 } else { 0x8000 }, 0x7C00), "relu.f16x2 low of {x:e}");
        assert_eq!(w[8], tf32(x, "rna", false, false), "cvt.rna.tf32.f32 of {x:e} ({:#x})", x.to_bits());
        assert_eq!(w[9], tf32(x, "rna", true, false), "cvt.rna.satfinite.tf32.f32 of {x:e}");
        assert_eq!(w[10], tf32(x, "rn", false, false), "cvt.rn.tf32.f32 of {x:e} ({:#x})", x.to_bits());
        assert_eq!(w[11], tf32(x, "rz", false, true), "cvt.rz.relu.tf32.f32 of {x:e}");
        let th = f32::from_bits(w[12]) as f64;
        let want = (x as f64).tanh();
        assert!(
            th == want || (th - want).abs() <= want.abs() * 2f64.powi(-10) || (x.is_nan() && th.is_nan()),
            "tanh({x:e}) = {th:e}"
        );
        // set of (x, 1.0) against (0.5, 0.5), in x's f16 value.
        let hx = h16(plain);
        let lt = if plain & 0x7FFF > 0x7C00 { false } else { hx < 0.5 };
        let ge = if plain & 0x7FFF > 0x7C00 { false } else { hx >= 0.5 };
        assert_eq!(w[13], if lt { 0xFFFF_0000 } else { 0 }, "set.lt.u32.f16x2 of {x:e}");
        assert_eq!(w[14], if ge { 0x3C00_3C00 } else { 0x3C00 }, "set.ge.f16x2.f16x2 of {x:e}");
        let bx = f32::from_bits(bf16(x) << 16);
        let odd = t % 2 == 1;
        let gt = !x.is_nan() && bx > 0.5 && odd;
        assert_eq!(w[15], (u32::from(gt) * 0x3F80_0000) | (u32::from(odd) * 0x3F80), "set.gt.and.bf16x2 of {x:e}");
    }
}
