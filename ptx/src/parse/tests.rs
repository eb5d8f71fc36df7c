//! The parser on clang's and nvcc's forms, and its errors.

use super::*;

const VECADD: &str = include_str!("../../../kernels/vecadd.ptx");
const REDUCE: &str = include_str!("../../../kernels/reduce.ptx");

#[test]
fn parses_clang_output() {
    let m = parse(VECADD).unwrap();
    assert_eq!((m.version, m.address_size), ((6, 4), 64));
    let f = &m.funcs[0];
    assert_eq!((f.name.as_str(), f.entry, f.params.len()), ("vecadd", true, 4));
    let body = f.body.as_ref().unwrap();
    assert!(body.iter().any(|s| matches!(s, Stmt::Label(l, _) if l == "LBB0_2")));
    let ld = body.iter().find_map(|s| match s {
        Stmt::Instr(i) if i.op == "ld" && i.has("global") => Some(i.clone()),
        _ => None,
    });
    let ld = ld.unwrap();
    assert_eq!(ld.mods, ["global", "f32"]);
    assert!(matches!(&ld.args[1], Operand::Addr(b, 0) if **b == Operand::Name("%rd3".into())));
    let r = parse(REDUCE).unwrap();
    let body = r.funcs[0].body.as_ref().unwrap();
    assert!(body.iter().any(|s| matches!(s, Stmt::Var(v) if v.space == StateSpace::Shared && v.count == Some(1024))));
}

#[test]
fn module_variables_with_initializers() {
    let m = parse(
        ".version 7.0\n.target sm_70\n.address_size 64\n.global .align 4 .u32 t[4] = {1, 2, -3, 0x10};\n\
         .const .align 8 .f64 k = 0d3FF0000000000000;\n.extern .shared .align 4 .b8 dyn[];\n",
    )
    .unwrap();
    assert_eq!(m.vars[0].init, [Init::Int(1), Init::Int(2), Init::Int(3u64.wrapping_neg()), Init::Int(16)]);
    assert_eq!(m.vars[1].init, [Init::F64(0x3FF0_0000_0000_0000)]);
    assert!(m.vars[2].linkage == Linkage::Extern && m.vars[2].count == Some(0));
}

#[test]
fn errors_name_line_column_and_expectation() {
    let e = parse(".version 6.0\n.target sm_70\n.address_size 64\n.entry k()\n{\n  mov.u32 %r1 %r2;\n}\n").unwrap_err();
    assert_eq!((e.line, e.col), (6, 15));
    assert!(e.msg.contains("expected `,` or `;`"), "{}", e.msg);
    let e = parse(".version 0.9\n").unwrap_err();
    assert!(e.msg.contains("not supported"));
    assert_eq!(parse(".version 1.4\n.target sm_13\n").unwrap().version, (1, 4));
    let e = parse(".version 6.0\n.entry k( { }").unwrap_err();
    assert!(e.msg.contains("expected a state space"), "{e}");
    assert!(parse("").unwrap_err().msg.contains(".version"));
}

#[test]
fn calls_vectors_and_negation() {
    let src = ".version 6.0\n.target sm_70\n.address_size 64\n.func (.param .b32 r) f(.param .b32 a)\n{\n ret;\n}\n\
               .entry k()\n{\n .reg .pred %p<3>;\n { .param .b32 p0;\n st.param.b32 [p0+0], 1;\n call.uni (r0), f, (p0);\n }\n\
               ld.global.v2.f32 {%f1, _}, [%rd1+-8];\n and.pred %p1, %p2, !%p0;\n setp.lt.s32 %p1|%p2, %r1, -5;\n}\n";
    let m = parse(src).unwrap();
    let body = m.funcs[1].body.as_ref().unwrap();
    let instrs: Vec<&Instr> = body.iter().filter_map(|s| if let Stmt::Instr(i) = s { Some(i) } else { None }).collect();
    assert!(matches!(&instrs[1].args[0], Operand::List(v) if v.len() == 1));
    assert!(matches!(&instrs[2].args[1], Operand::Addr(_, -8)));
    assert!(matches!(&instrs[3].args[2], Operand::Not(_)));
    assert_eq!(instrs[4].args.len(), 4);
    assert_eq!(instrs[4].args[3], Operand::Int(5u64.wrapping_neg()));
}

#[test]
fn cluster_directives_give_the_kernels_shape() {
    let k = |d: &str| parse(&format!(".version 7.8\n.target sm_90\n.address_size 64\n.entry k() {d}\n{{\n ret;\n}}\n"));
    let m = k(".reqnctapercluster 2, 2 .explicitcluster .maxclusterrank 4").unwrap();
    assert_eq!((m.funcs[0].cluster, m.funcs[0].explicit_cluster), (Some([2, 2, 1]), true));
    let m = k(".maxntid 128").unwrap();
    assert_eq!((m.funcs[0].cluster, m.funcs[0].explicit_cluster), (None, false));
    // At most 16 blocks, three dimensions, none of them 0.
    for bad in
        [".reqnctapercluster 17", ".reqnctapercluster 4, 4, 2", ".reqnctapercluster 0", ".reqnctapercluster 1, 1, 1, 1"]
    {
        let e = k(bad).unwrap_err();
        assert!(e.msg.contains("a cluster is 1 to 3 dimensions of at most 16 blocks"), "{bad}: {e}");
    }
}
