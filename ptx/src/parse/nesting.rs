//! Nesting costs no host stack (deep scopes, initializers, call chains).
use crate::compile_ptx;
use alloc::format;
use alloc::string::String;

const HEAD: &str = ".version 6.0\n.target sm_70\n.address_size 64\n";

/// Nesting costs no host stack: scopes and initializer lists are flattened iteratively,
/// operands are bounded, and the call graph is searched with an explicit stack.
#[test]
fn deep_nesting_is_an_answer_not_a_crash() {
    const N: usize = 1_000_000;
    // A million nested scopes around a valid body compile.
    let ok = format!("{HEAD}.visible .entry k() {{\n{}ret;\n{}}}\n", "{".repeat(N), "}".repeat(N));
    assert_eq!(compile_ptx(&ok).unwrap().kernels.len(), 1);
    // ...and an error inside them is reported with its position.
    let bad = format!("{HEAD}.visible .entry k() {{\n{}\nfrob.u32 %r1;\n{}}}\n", "{".repeat(N), "}".repeat(N));
    let e = compile_ptx(&bad).unwrap_err();
    assert_eq!(e.line, 6, "{e}");
    // Unbalanced scopes end in an error, not a crash.
    let open = format!("{HEAD}.visible .entry k() {{\n{}", "{".repeat(N));
    assert!(format!("{}", compile_ptx(&open).unwrap_err()).contains("expected `}`"));
    // A million nested initializer braces: the elements are flattened.
    let init = format!("{HEAD}.global .align 4 .u32 t[2] = {}1, 2{};\n", "{".repeat(N), "}".repeat(N));
    let p = compile_ptx(&init).unwrap();
    assert_eq!(&p.global_init[..8], &[1, 0, 0, 0, 2, 0, 0, 0]);
    let init = format!("{HEAD}.global .align 4 .u32 t[2] = {}1, 2;\n", "{".repeat(N));
    assert!(compile_ptx(&init).is_err());
    // Operands nest at most a few levels.
    let deep = format!("{HEAD}.visible .entry k() {{\n.reg .pred %p;\nnot.pred %p, {}%p;\nret;\n}}\n", "!".repeat(N));
    assert!(format!("{}", compile_ptx(&deep).unwrap_err()).contains("nested too deeply"));
    let deep =
        format!("{HEAD}.visible .entry k() {{\nst.v2.u32 [%rd1], {}1{};\nret;\n}}\n", "{".repeat(N), "}".repeat(N));
    assert!(format!("{}", compile_ptx(&deep).unwrap_err()).contains("nested too deeply"));
}

/// A 50,000-deep chain of `.func` calls is searched for recursion without recursing,
/// and a cycle at its far end is still found.
#[test]
fn deep_call_chains_are_searched_iteratively() {
    const N: usize = 50_000;
    let chain = |last_calls: &str| {
        let mut s = String::from(HEAD);
        for k in 0..N {
            let callee = if k + 1 < N { format!("f{}", k + 1) } else { String::from(last_calls) };
            s += &format!(".func f{k}() {{\n");
            if !callee.is_empty() {
                s += &format!("call {callee}, ();\n");
            }
            s += "ret;\n}\n";
        }
        s + ".visible .entry k() {\ncall f0, ();\nret;\n}\n"
    };
    let e = compile_ptx(&chain("f0")).unwrap_err();
    assert!(format!("{e}").contains("recursive call"), "{e}");
    // Without the cycle it is a (deep) program; it may be refused for its size, but
    // the answer is an error or a program, never a crash.
    let _ = compile_ptx(&chain(""));
}
