//! PTX generators for the kernels that exist to put pressure on registers, shared by the
//! tests that run them and by `tests/ptxas_figures.rs`, which compares their register
//! counts with NVIDIA ptxas's.

/// The PTX header the generated kernels use.
pub const HDR: &str = ".version 6.4\n.target sm_70\n.address_size 64\n";

/// Entry `live(in, out)`: each thread loads `n` values, combines them in order, then again
/// in reverse order: all `n` are live at once however the loads are scheduled (a compiler
/// that sinks each load to its first use still holds every value until its second).
/// [`live_ref`] is the result for one thread.
pub fn live(n: usize) -> String {
    let mut s = format!(
        "{HDR}.entry live(.param .u64 in, .param .u64 out)\n{{\n .reg .b32 %v<{n}>;\n .reg .b32 %acc;\n .reg .b32 %t;\n .reg .b64 %rd<6>;\n\
         mov.u32 %t, %tid.x;\n ld.param.u64 %rd1, [in];\n mul.wide.u32 %rd2, %t, {};\n add.s64 %rd3, %rd1, %rd2;\n",
        4 * n
    );
    for k in 0..n {
        s += &format!(" ld.global.u32 %v{k}, [%rd3+{}];\n", 4 * k);
    }
    s += " mov.u32 %acc, 0;\n";
    for k in 0..n {
        s += &format!(" mad.lo.u32 %acc, %acc, 3, %v{k};\n");
    }
    for k in (0..n).rev() {
        s += &format!(" mad.lo.u32 %acc, %acc, 5, %v{k};\n");
    }
    s += " ld.param.u64 %rd4, [out];\n mul.wide.u32 %rd5, %t, 4;\n add.s64 %rd4, %rd4, %rd5;\n st.global.u32 [%rd4], %acc;\n ret;\n}\n";
    s
}

/// What [`live`] computes for one thread's values.
pub fn live_ref(v: &[u32]) -> u32 {
    let fwd = v.iter().fold(0u32, |acc, &x| acc.wrapping_mul(3).wrapping_add(x));
    v.iter().rev().fold(fwd, |acc, &x| acc.wrapping_mul(5).wrapping_add(x))
}

/// Entry `wide(p)`: 40 values loaded as ten 4-vectors, each used twice in opposite orders,
/// so all 40 are live at once.
pub fn wide() -> String {
    let mut body = String::from("ld.param.u64 %rd1, [p];\nmov.f32 %f0, 0f00000000;\n");
    for k in 0..10 {
        let f = 4 * k + 1;
        body += &format!("ld.global.v4.f32 {{%f{f}, %f{}, %f{}, %f{}}}, [%rd1+{}];\n", f + 1, f + 2, f + 3, 16 * k);
    }
    for k in (1..=40).chain((1..=40).rev()) {
        body += &format!("add.f32 %f0, %f0, %f{k};\n");
    }
    format!(
        "{HDR}.visible .entry wide(.param .u64 p)\n{{\n.reg .f32 %f<41>;\n.reg .b64 %rd<2>;\n{body}st.global.f32 [%rd1], %f0;\nret;\n}}\n"
    )
}

/// Entry `chase(next, out, steps)`: a pointer chase of `steps` dependent loads per thread, with `live` values held in
/// registers across it (`hold`) or loaded after it (same instructions, few registers).
/// The values are loads (from the start of the chain), which no compiler recomputes.
pub fn chase(live: usize, hold: bool) -> String {
    let load = |j: usize| format!(" ld.global.u32 %v{j}, [%rd7+{}];\n", 4 * j);
    let defs: String = (0..live).map(load).collect();
    let uses: String = (0..live).rev().map(|j| format!(" add.u32 %r8, %r8, %v{j};\n")).collect();
    let interleaved: String = (0..live).map(|j| format!("{} add.u32 %r8, %r8, %v{j};\n", load(j))).collect();
    let (before, after) = if hold { (defs, uses) } else { (String::new(), interleaved) };
    format!(
        "{HDR}.visible .entry chase(.param .u64 next, .param .u64 out, .param .u32 steps)\n{{\n\
         .reg .pred %p<2>;\n .reg .b32 %r<12>;\n .reg .b32 %v<{live}>;\n .reg .b64 %rd<8>;\n\
         mov.u32 %r1, %ctaid.x;\n mov.u32 %r2, %ntid.x;\n mov.u32 %r3, %tid.x;\n mad.lo.s32 %r4, %r1, %r2, %r3;\n\
         ld.param.u64 %rd7, [next];\n{before} mov.u32 %r5, %r4;\n ld.param.u64 %rd1, [next];\n ld.param.u32 %r6, [steps];\n mov.u32 %r7, 0;\n\
         LOOP:\n mul.wide.u32 %rd2, %r5, 4;\n add.s64 %rd3, %rd1, %rd2;\n ld.global.u32 %r5, [%rd3];\n\
         add.u32 %r7, %r7, 1;\n setp.lt.u32 %p1, %r7, %r6;\n @%p1 bra LOOP;\n mov.u32 %r8, %r5;\n{after}\
         ld.param.u64 %rd4, [out];\n mul.wide.u32 %rd5, %r4, 4;\n add.s64 %rd6, %rd4, %rd5;\n st.global.u32 [%rd6], %r8;\n\
         ret;\n}}\n"
    )
}

/// Functions `f`, `g` and `h`, each keeping 20 values live at once (the steps of a chain
/// no compiler can fold or recompute from its start: times 3, xor k), mapping x to x plus
/// its 19 chain values.
pub fn funcs() -> String {
    let func = |name: &str, n: usize| {
        let mut t = format!(".func (.param .b32 {name}_r) {name}(.param .b32 {name}_a)\n{{\n.reg .u32 %v<{n}>;\n");
        t += &format!("ld.param.u32 %v0, [{name}_a];\n");
        for k in 1..n {
            t += &format!("mul.lo.u32 %v{k}, %v{}, 3;\nxor.b32 %v{k}, %v{k}, {k};\n", k - 1);
        }
        for k in 1..n {
            t += &format!("add.u32 %v0, %v0, %v{k};\n");
        }
        t + &format!("st.param.b32 [{name}_r], %v0;\nret;\n}}\n")
    };
    format!("{}{}{}", func("f", 20), func("g", 20), func("h", 20))
}

/// Entry `name(out)`: thread index through each of `calls` in turn, stored to `out`.
pub fn caller(name: &str, calls: &[&str]) -> String {
    let call = |f: &str| {
        format!(
            "{{\n.param .b32 p;\nst.param.b32 [p], %r1;\n.param .b32 r;\ncall (r), {f}, (p);\n\
             ld.param.b32 %r1, [r];\n}}\n"
        )
    };
    let body: String = calls.iter().map(|c| call(c)).collect();
    format!(
        ".visible .entry {name}(.param .u64 out)\n{{\n.reg .u32 %r<2>;\n.reg .u64 %a;\n\
         ld.param.u64 %a, [out];\nmov.u32 %r1, %tid.x;\n{body}st.global.u32 [%a], %r1;\nret;\n}}\n"
    )
}
