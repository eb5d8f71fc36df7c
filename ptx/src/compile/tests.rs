//! The compiler's unit tests: whole modules through `compile_ptx`.

use super::*;

#[test]
fn compiles_vecadd_and_reduce() {
    let p = compile_ptx(include_str!("../../../kernels/vecadd.ptx")).unwrap();
    let k = p.kernel("vecadd").unwrap();
    assert_eq!(
        k.params,
        [
            Param { offset: 0, size: 8 },
            Param { offset: 8, size: 8 },
            Param { offset: 16, size: 8 },
            Param { offset: 24, size: 4 }
        ]
    );
    assert_eq!(k.param_bytes, 28);
    assert_eq!(p.code.last().unwrap().w0.op(), Op::Exit);
    // `@%p1 bra LBB0_2` skips the body; both paths meet at LBB0_2 (the `ret`, now an
    // unconditional branch to the exit block).
    let bra = p.code.iter().find(|i| i.w0.op() == Op::Bra).unwrap();
    let t = BranchTarget::from(bra.imm);
    let n = p.code.len() as u32;
    assert_eq!((t.target(), t.reconverge()), (n - 2, n - 2));
    assert_eq!(BranchTarget::from(p.code[n as usize - 2].imm).target(), n - 1);
    let r = compile_ptx(include_str!("../../../kernels/reduce.ptx")).unwrap();
    let k = r.kernel("reduce").unwrap();
    assert_eq!(k.shared_bytes, 1024);
    assert!(r.code.iter().any(|i| i.w0.op() == Op::Bar));
    assert!(r.code.iter().any(|i| i.w0.op() == Op::Atom));
}

#[test]
fn cache_operators_reach_the_instruction() {
    use hw::isa::{CacheOp, MemMods};
    let hdr = ".version 7.0\n.target sm_70\n.address_size 64\n.entry k(.param .u64 p)\n{\n .reg .b64 %rd<3>;\n";
    for (text, op) in [
        ("ld.global.u64", CacheOp::Default),
        ("ld.global.ca.u64", CacheOp::Default),
        ("ld.global.cg.u64", CacheOp::Global),
        ("ld.global.cs.u64", CacheOp::Streaming),
        ("ld.global.lu.u64", CacheOp::Streaming),
        ("ld.global.cv.u64", CacheOp::Volatile),
        ("ld.volatile.global.u64", CacheOp::Global),
        ("ld.relaxed.gpu.global.u64", CacheOp::Global),
        ("ld.acquire.cta.global.u64", CacheOp::Default),
    ] {
        let src =
            format!("{hdr} ld.param.u64 %rd1, [p];\n {text} %rd2, [%rd1];\n st.global.cs.u64 [%rd1], %rd2;\n}}\n");
        let p = compile_ptx(&src).unwrap();
        let ld = p.code.iter().rfind(|i| i.w0.op() == Op::Ld).unwrap();
        assert_eq!(MemMods::cache(ld.w0.m()), op, "{text}");
        let st = p.code.iter().find(|i| i.w0.op() == Op::St).unwrap();
        assert_eq!(MemMods::cache(st.w0.m()), CacheOp::Streaming);
    }
}

#[test]
fn instructions_rgdev_does_not_implement_are_named_and_marked_unsupported() {
    let hdr = ".version 8.0\n.target sm_90\n.address_size 64\n.entry k()\n{\n .reg .b64 %rd<3>;\n .reg .f32 %f<2>;\n";
    for (text, what) in [
        ("wgmma.fence.sync.aligned;", "`wgmma.fence.sync.aligned`"),
        (
            "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd1], [%rd2, {%f0}], [%rd1];",
            "`cp.async.bulk.tensor",
        ),
        (
            "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [%rd2], 128;",
            "`tensormap.",
        ),
    ] {
        let e = compile_ptx(&format!("{hdr} {text}\n}}\n")).unwrap_err();
        assert!(e.unsupported && e.msg.contains(what), "{text}: {e}");
    }
    let e = compile_ptx(&format!("{hdr} frobnicate.u32 %rd1, %rd1;\n}}\n")).unwrap_err();
    assert!(!e.unsupported, "{e}");
    for ok in ["setmaxnreg.dec.sync.aligned.u32 40;", "griddepcontrol.wait;", "fence.proxy.async.shared::cta;"] {
        compile_ptx(&format!("{hdr} {ok}\n ret;\n}}\n")).unwrap_or_else(|e| panic!("{ok}: {e}"));
    }
}

#[test]
fn unsupported_ptx_is_an_error_naming_it() {
    let hdr = ".version 6.0\n.target sm_70\n.address_size 64\n.entry k()\n{\n .reg .b32 %r<3>;\n";
    let e = compile_ptx(&format!("{hdr} frobnicate.u32 %r1, %r1;\n}}\n")).unwrap_err();
    assert!(e.msg.contains("unsupported instruction `frobnicate.u32`"), "{e}");
    assert_eq!(e.line, 7);
    let e = compile_ptx(&format!("{hdr} add.u32 %r1, %r9, 1;\n}}\n")).unwrap_err();
    assert!(e.msg.contains("unknown register `%r9`"));
    let e = compile_ptx(&format!("{hdr} bra L;\n}}\n")).unwrap_err();
    assert!(e.msg.contains("unknown label `L`"));
    let e = compile_ptx(&format!("{hdr} sin.approx.f16 %r1, %r1;\n}}\n")).unwrap_err();
    assert!(e.msg.contains("not supported for half precision"), "{e}");
    let e = compile_ptx(&format!("{hdr} add.rz.f16 %r1, %r1, %r1;\n}}\n")).unwrap_err();
    assert!(e.msg.contains("modifier `.rz`"), "{e}");
    let e = compile_ptx(&format!("{hdr} setp.lt.f16x2 %r1, %r1, %r1;\n}}\n")).unwrap_err();
    assert!(e.msg.contains("two destination predicates"), "{e}");
    let e = compile_ptx(&format!("{hdr} atom.global.inc.f16 %r1, [%r1], %r1;\n}}\n")).unwrap_err();
    assert!(e.msg.contains("not supported"), "{e}");
}

#[test]
fn cp_async_and_qualified_modifiers() {
    let hdr = ".version 7.8\n.target sm_80\n.address_size 64\n.entry k(.param .u64 p)\n{\n .reg .b64 %rd<3>;\n .reg .b32 %r<3>;\n .shared .align 16 .b8 s[64];\n ld.param.u64 %rd1, [p];\n";
    let ok = format!(
        "{hdr} cp.async.ca.shared::cta.global [s], [%rd1], 16;\n cp.async.cg.shared.global.L2::128B [s+16], [%rd1+16], 16, %r1;\n cp.async.commit_group;\n cp.async.wait_group 0;\n cp.async.wait_all;\n ret;\n}}\n"
    );
    let p = compile_ptx(&ok).unwrap();
    // Two 8-byte loads and stores for the whole copy; 16 guarded byte loads for the other.
    let lds = p.code.iter().filter(|i| i.w0.op() == Op::Ld).count();
    assert_eq!(lds, 1 + 2 + 16);
    assert_eq!(p.code.iter().filter(|i| i.w0.op() == Op::Ld && i.w0.guard() != ALWAYS).count(), 16);
    let e = compile_ptx(&format!("{hdr} cp.async.bulk.shared.global [s], [%rd1], 16;\n ret;\n}}\n")).unwrap_err();
    // Bulk copies name `.shared::cta` or `.shared::cluster` (tests/hopper.rs runs them).
    assert!(!e.unsupported && e.msg.contains("expected a destination and a source space"), "{e}");
    let e = compile_ptx(&format!("{hdr} cp.async.ca.shared.global [s], [%rd1], 12;\n ret;\n}}\n")).unwrap_err();
    assert!(e.msg.contains("4, 8 or 16"), "{e}");
}

#[test]
fn oversized_or_malformed_layouts_are_errors_not_crashes() {
    // Found by cargo-fuzz: the product of array dimensions overflowed.
    let crash = "//\n// \n\t.shared . amE5len[1024][1024][1024][124][1024][1024][1024];\n";
    assert!(compile_ptx(&format!(".version 6.0\n{crash}")).is_err());
    let hdr = ".version 6.0\n.target sm_70\n.address_size 64\n";
    let e = compile_ptx(&format!("{hdr}.global .b8 huge[4000000000];\n")).unwrap_err();
    assert!(e.msg.contains("larger than"), "{e}");
    let e = compile_ptx(&format!("{hdr}.shared .align 3 .b8 x[4];\n.entry k()\n{{\n mov.u64 %rd1, x;\n ret;\n}}\n"))
        .unwrap_err();
    assert!(e.msg.contains("alignment"), "{e}");
    let many: String = (0..5).map(|k| format!(".global .b8 g{k}[268435456];\n")).collect();
    let e = compile_ptx(&format!("{hdr}{many}")).unwrap_err();
    assert!(e.msg.contains("state space larger"), "{e}");
    // The constant bank holds 64 KiB, as ptxas enforces; exactly that much fits.
    assert!(compile_ptx(&format!("{hdr}.const .b8 c[65536];\n")).is_ok());
    let e = compile_ptx(&format!("{hdr}.const .b8 a[65532];\n.const .align 8 .b8 b[8];\n")).unwrap_err();
    assert!(e.msg.contains("64 KiB constant bank") && e.line == 5, "{e}");
    assert!(
        compile_ptx(&format!("{hdr}.entry k() .maxntid 4294967295, 4294967295, 4294967295\n{{\n ret;\n}}\n")).is_ok()
    );
}

#[test]
fn registers_holding_one_immediate_are_operands_but_never_a_second_one_in_a_loop() {
    let src = |body: &str| {
        format!(
            ".version 6.0\n.target sm_70\n.address_size 64\n.entry k(.param .u64 p)\n{{\n .reg .f32 %f<5>;\n\
             .reg .b32 %r<2>;\n .reg .pred %q;\n .reg .b64 %rd<2>;\n ld.param.u64 %rd1, [p];\n\
             mov.f32 %f1, 0f3F800000;\n mov.f32 %f2, 0f40000000;\n mov.f32 %f4, 0f40400000;\n\
             ld.global.f32 %f0, [%rd1];\n mov.u32 %r1, 0;\n{body}\n st.global.f32 [%rd1], %f3;\n ret;\n}}\n"
        )
    };
    let ops = |p: &Program| p.code.iter().map(|i| i.w0.op()).collect::<Vec<Op>>();
    // Outside a loop both are immediates: the fma moves one into a register once.
    let once = compile_ptx(&src(" fma.rn.f32 %f3, %f0, %f1, %f2;\n add.f32 %f3, %f3, %f4;")).unwrap();
    let o = ops(&once);
    assert_eq!(o.iter().filter(|&&x| x == Op::Mov).count(), 1, "{o:?}");
    // In a loop one of them stays a register (its mov stays before the loop): the loop
    // body moves nothing, and %f4 is still the add's immediate.
    let looped =
        compile_ptx(&src("L:\n fma.rn.f32 %f3, %f0, %f1, %f2;\n add.f32 %f3, %f3, %f4;\n add.u32 %r1, %r1, 1;\n\
         setp.lt.u32 %q, %r1, 9;\n @%q bra L;"))
        .unwrap();
    let o = ops(&looped);
    let (mad, bra) = (o.iter().position(|&x| x == Op::Mad).unwrap(), o.iter().position(|&x| x == Op::Bra).unwrap());
    assert!(!o[mad..bra].contains(&Op::Mov), "{o:?}");
    assert_ne!(looped.code[mad].w0.imm(), Imm::None);
    assert_eq!(looped.code.iter().find(|i| i.w0.op() == Op::Add && i.w0.ty() == Ty::F32).unwrap().w0.imm(), Imm::B);
}

#[test]
fn module_data_and_relocations() {
    let src = ".version 6.0\n.target sm_70\n.address_size 64\n.global .align 4 .u32 g[2] = {7, 9};\n\
               .const .align 4 .f32 c[2] = {1.5, 0f40000000};\n.entry k(.param .u64 p)\n{\n .reg .b32 %r<3>;\n .reg .b64 %rd<2>;\n\
               ld.global.u32 %r1, [g+4];\n ld.const.u32 %r2, [c+4];\n mov.u64 %rd1, g;\n st.global.u64 [%rd1], %rd1;\n ret;\n}\n";
    let p = compile_ptx(src).unwrap();
    assert_eq!(p.global_init, [7, 0, 0, 0, 9, 0, 0, 0]);
    assert_eq!((p.global_size, p.const_size), (8, 8));
    assert_eq!(p.const_init[..4], 1.5f32.to_le_bytes());
    assert_eq!(p.const_init[4..8], 2.0f32.to_le_bytes());
    assert_eq!(p.relocs.len(), 2);
    let bytes = p.code_bytes(0x1000);
    let ld = Instr::from_bytes(bytes[p.relocs[0].at as usize * 16..][..16].try_into().unwrap());
    assert_eq!(ld.imm, 0x1004);
}

#[test]
fn managed_variables_are_placed_by_the_loader() {
    let src = ".version 6.0\n.target sm_70\n.address_size 64\n.global .align 4 .u32 a[2];\n\
               .global .attribute(.managed) .align 4 .u32 m[2] = {5, 6};\n.global .align 4 .u32 b;\n\
               .entry k()\n{\n .reg .b32 %r<4>;\n\
               ld.global.u32 %r1, [m+4];\n ld.global.u32 %r2, [a+4];\n ld.global.u32 %r3, [b];\n ret;\n}\n";
    let p = compile_ptx(src).unwrap();
    let m = p.symbols.iter().position(|s| s.name == "m").unwrap();
    assert!(p.symbols[m].managed && !p.symbol("a").unwrap().managed);
    // Its initial value stays in the segment image, for the loader to copy.
    let off = p.symbols[m].offset as usize;
    assert_eq!(p.global_init[off..off + 8], [5, 0, 0, 0, 6, 0, 0, 0]);
    let imm =
        |bytes: &[u8], k: usize| Instr::from_bytes(bytes[p.relocs[k].at as usize * 16..][..16].try_into().unwrap()).imm;
    let placed = p.code_bytes_placed(0x1000, 0, &[(m, 0x9_0000)]);
    assert_eq!(imm(&placed, 0), 0x9_0004);
    assert_eq!(imm(&placed, 1), 0x1004);
    assert_eq!(imm(&placed, 2), 0x1000 + p.symbol("b").unwrap().offset as u64);
    // The container keeps the attribute.
    let back = Program::from_container(&p.to_container()).unwrap();
    assert!(back.symbols[m].managed);
    // Other variable attributes are refused.
    let bad = src.replace(".attribute(.managed)", ".attribute(.unified(1,2))");
    assert!(compile_ptx(&bad).is_err());
}

#[test]
fn literals_beside_each_other_in_a_loop_compile() {
    // Several literal operands and no folded register in a loop (a shuffle's lane, clamp
    // and mask; an add of two literals): regression, the constant folding indexed an empty
    // list of folded registers.
    let src = ".version 7.0\n.target sm_70\n.address_size 64\n.entry k(.param .u64 p)\n{\n\
               .reg .b32 %r<4>;\n .reg .pred %q;\n mov.u32 %r1, %tid.x;\n mov.u32 %r2, 0;\nL:\n\
               shfl.sync.bfly.b32 %r1, %r1, 1, 31, -1;\n add.u32 %r3, 2, 3;\n add.u32 %r2, %r2, %r3;\n\
               setp.lt.u32 %q, %r2, 64;\n @%q bra L;\n ret;\n}\n";
    compile_ptx(src).unwrap();
}

/// A literal moved into a register once serves the instructions after it up to the next
/// label or branch, as in ptxas's SASS (vecadd for sm_80: one `MOV` of 4 for its three
/// `IMAD.WIDE`s); past a label it is moved again.
#[test]
fn a_literal_register_serves_the_instructions_up_to_the_next_label() {
    let p = compile_ptx(include_str!("../../../kernels/vecadd.ptx")).unwrap();
    let movs =
        |p: &Program| p.code.iter().filter(|i| i.w0.op() == Op::Mov && i.w0.imm() == Imm::A && i.imm == 4).count();
    let wide = p.code.iter().filter(|i| i.w0.op() == Op::Mad && i.w0.m() & 3 == MulMode::Wide as u16).count();
    assert_eq!((movs(&p), wide), (1, 3));
    let src = ".version 7.0\n.target sm_70\n.address_size 64\n.entry k(.param .u64 a, .param .u64 b)\n{\n\
               .reg .b32 %r<3>;\n .reg .b64 %rd<6>;\n ld.param.u64 %rd1, [a];\n ld.param.u64 %rd2, [b];\n\
               mov.u32 %r1, %tid.x;\n mad.wide.u32 %rd3, %r1, 4, %rd1;\n st.global.u32 [%rd3], %r1;\n\
               L1:\n mad.wide.u32 %rd4, %r1, 4, %rd2;\n st.global.u32 [%rd4], %r1;\n ret;\n}\n";
    assert_eq!(movs(&compile_ptx(src).unwrap()), 2);
}

#[test]
fn module_constants_at_fixed_addresses_are_constant_bank_operands() {
    // As ptxas reads `__constant__` data: `c[1][off]` in the instruction, no load, no
    // register. A load through a register address stays a load.
    let src = ".version 7.0\n.target sm_70\n.address_size 64\n.const .align 4 .f32 c[4] = {1.0, 2.0, 3.0, 4.0};\n\
               .entry k(.param .u64 p)\n{\n .reg .f32 %f<5>;\n .reg .b64 %rd<3>;\n ld.param.u64 %rd1, [p];\n\
               ld.global.f32 %f1, [%rd1];\n ld.const.f32 %f2, [c+8];\n fma.rn.f32 %f3, %f1, %f1, %f2;\n\
               st.global.f32 [%rd1], %f3;\n ret;\n}\n";
    let p = compile_ptx(src).unwrap();
    let fma = p.code.iter().find(|i| i.w0.op() == Op::Mad && i.w0.ty() == Ty::F32).unwrap();
    let c = ConstRef::of_field(fma.w0.c()).expect("the addend is a constant-bank operand");
    assert_eq!((c.bank(), c.bytes(), fma.imm), (1, 4, 8));
    assert!(!p.code.iter().any(|i| i.w0.op() == Op::Ld && MemMods::bank(i.w0.m()) == 1), "no load from bank 1");
}

/// A vector load's results are read where they were loaded, as ptxas reads them
/// (`LDG.E.128 R4` then `IADD3 R8, R5, R4, R8`): no moves out of the vector group. Past a
/// label, or where another vector access comes first, they are moved out.
#[test]
fn a_vector_loads_results_are_read_in_place() {
    let k = |body: &str| {
        format!(
            ".version 7.0\n.target sm_70\n.address_size 64\n.entry k(.param .u64 a)\n{{\n\
             .reg .b32 %r<9>;\n .reg .b64 %rd<3>;\n ld.param.u64 %rd1, [a];\n\
             ld.global.v4.u32 {{%r1, %r2, %r3, %r4}}, [%rd1];\n{body}\n ret;\n}}\n"
        )
    };
    let moves = |src: &str| {
        let p = compile_ptx(src).unwrap();
        p.code.iter().filter(|i| i.w0.op() == Op::Mov && i.w0.ty() == Ty::U64 && i.w0.imm() == Imm::None).count()
    };
    let sum =
        " add.s32 %r5, %r1, %r2;\n add.s32 %r6, %r3, %r4;\n add.s32 %r7, %r5, %r6;\n st.global.u32 [%rd1], %r7;\n";
    assert_eq!(moves(&k(sum)), 0);
    // Read after a label: moved out.
    let later = " add.s32 %r5, %r1, %r2;\n L1:\n add.s32 %r6, %r3, %r4;\n st.global.u32 [%rd1], %r6;\n";
    assert!(moves(&k(later)) >= 2);
    // Another vector access before the last read: moved out.
    let vec = " st.global.v2.u32 [%rd1+16], {%r1, %r2};\n add.s32 %r6, %r3, %r4;\n st.global.u32 [%rd1], %r6;\n";
    assert!(moves(&k(vec)) >= 4);
}
