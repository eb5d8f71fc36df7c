//! `rgdev bench fidelity`: the project's own microbenchmarks of the quantities a real GPU was
//! measured on (latencies of the memory hierarchy and the pipelines, bank conflicts, bandwidths,
//! copies, atomics, launches), run on a preset and printed beside the reference figures of the
//! real part (`fidelity/*.csv`: an H200 measured by the team, a V100 as published) with the
//! ratio. `--check` fails when a row with a tolerance is outside it. The kernels are PTX written
//! here, generated per quantity; they time themselves with `%clock64` (latencies) or are timed
//! with events (rates), as the reference programs do.

use backend_user::{Arg, Context, Device, DeviceOptions, Function, HostBuffer, Module};
use std::cell::RefCell;
use std::fmt::Write as _;
use std::process::ExitCode;

/// The reference figures of a preset's real part, if the repository has them.
fn reference(preset: &str) -> Option<&'static str> {
    match preset {
        "h200" => Some(include_str!("../../../../fidelity/h200.csv")),
        "gv100" => Some(include_str!("../../../../fidelity/v100.csv")),
        _ => None,
    }
}

/// One reference row.
struct Ref {
    bench: String,
    key: String,
    value: f64,
    unit: String,
    tolerance: Option<f64>,
}

fn parse_reference(text: &str) -> Vec<Ref> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let [bench, key, value, unit, tol] = f.as_slice() else { return None };
            Some(Ref {
                bench: bench.to_string(),
                key: key.to_string(),
                value: value.parse().ok()?,
                unit: unit.to_string(),
                tolerance: tol.parse().ok(),
            })
        })
        .collect()
}

const HEADER: &str = ".version 7.0\n.target sm_70\n.address_size 64\n";

/// A one-thread pointer chase of `steps` (a multiple of 16) loads with cache operator `op`,
/// after a warming pass of as many (when `warm`): cycles per load to `out[0]`.
fn chase_ptx(name: &str, op: &str, warm: bool) -> String {
    let body = |label: &str| {
        let mut s = format!("{label}:\n");
        for _ in 0..16 {
            let _ = writeln!(s, " ld.global.{op}.u64 %p, [%p];");
        }
        let _ = write!(s, " add.u32 %i, %i, 16;\n setp.lt.u32 %q, %i, %n;\n @%q bra {label};\n");
        s
    };
    let warm = if warm { format!(" mov.u32 %i, 0;\n{}", body("WARM")) } else { String::new() };
    format!(
        ".visible .entry {name}(.param .u64 start, .param .u32 n, .param .u64 out)\n{{\n\
         .reg .b64 %p, %t0, %t1, %o;\n .reg .b32 %i, %n;\n .reg .pred %q;\n\
         ld.param.u64 %p, [start];\n ld.param.u32 %n, [n];\n ld.param.u64 %o, [out];\n\
         {warm} mov.u32 %i, 0;\n mov.u64 %t0, %clock64;\n{}\
         mov.u64 %t1, %clock64;\n sub.u64 %t1, %t1, %t0;\n st.global.u64 [%o], %t1;\n st.global.u64 [%o+8], %p;\n ret;\n}}\n",
        body("CHASE")
    )
}

/// A dependent chain of `n` x 32 instructions `op` (one warp): cycles per instruction.
/// `%x` is the chain; `%a` and `%b` are loaded from `io[1]`, `io[2]`.
fn chain_ptx(name: &str, ty: &str, op: &str) -> String {
    let (reg, ld) = match ty {
        "f64" => (".f64", "f64"),
        "s32" => (".b32", "s32"),
        _ => (".f32", "f32"),
    };
    let w = if ty == "f64" { 8 } else { 4 };
    // The loop's counter is updated and tested among the chain's first instructions, as
    // ptxas schedules it, so that the branch resolves in the chain's shadow.
    let first = format!(" {op};");
    let mut rest = String::new();
    for _ in 1..32 {
        let _ = writeln!(rest, " {op};");
    }
    format!(
        ".visible .entry {name}(.param .u64 io, .param .u32 n, .param .u64 out)\n{{\n\
         .reg {reg} %x, %a, %b;\n .reg .b64 %p, %o, %t0, %t1;\n .reg .b32 %i, %n;\n .reg .pred %q;\n\
         ld.param.u64 %p, [io];\n ld.param.u32 %n, [n];\n ld.param.u64 %o, [out];\n\
         ld.global.{ld} %x, [%p];\n ld.global.{ld} %a, [%p+{w}];\n ld.global.{ld} %b, [%p+{}];\n\
         mov.u32 %i, 0;\n mov.u64 %t0, %clock64;\nLOOP:\n add.u32 %i, %i, 1;\n{first}\n setp.lt.u32 %q, %i, %n;\n{rest}\
         @%q bra LOOP;\n\
         mov.u64 %t1, %clock64;\n sub.u64 %t1, %t1, %t0;\n st.global.{ld} [%p+{}], %x;\n\
         mov.u32 %i, %tid.x;\n setp.ne.u32 %q, %i, 0;\n @%q bra END;\n st.global.u64 [%o], %t1;\nEND:\n ret;\n}}\n",
        2 * w,
        3 * w
    )
}

/// One warp, lane `l` chasing shared word `l * stride` (mod 2112) through 8 x `n` loads, each
/// address a multiply-add of the value loaded: cycles per load.
const SHARED_PTX: &str = ".visible .entry shared_stride(.param .u32 stride, .param .u32 n, .param .u64 out)\n{\n\
 .shared .align 4 .b32 s[2112];\n .reg .b32 %t, %i, %n, %v, %a, %base;\n .reg .b64 %o, %t0, %t1;\n .reg .pred %q;\n\
 ld.param.u32 %n, [n];\n ld.param.u64 %o, [out];\n mov.u32 %t, %tid.x;\n mov.u32 %base, s;\n mov.u32 %i, %t;\n\
ZERO:\n shl.b32 %a, %i, 2;\n add.u32 %a, %a, %base;\n st.shared.u32 [%a], 0;\n add.u32 %i, %i, 32;\n\
 setp.lt.u32 %q, %i, 2112;\n @%q bra ZERO;\n bar.sync 0;\n\
 ld.param.u32 %i, [stride];\n mul.lo.u32 %i, %i, %t;\n rem.u32 %i, %i, 2112;\n mad.lo.u32 %base, %i, 4, %base;\n\
 mov.u32 %v, 0;\n mov.u32 %i, 0;\n mov.u64 %t0, %clock64;\nLOOP:\n\
 mad.lo.u32 %a, %v, 4, %base;\n ld.shared.u32 %v, [%a];\n mad.lo.u32 %a, %v, 4, %base;\n ld.shared.u32 %v, [%a];\n\
 mad.lo.u32 %a, %v, 4, %base;\n ld.shared.u32 %v, [%a];\n mad.lo.u32 %a, %v, 4, %base;\n ld.shared.u32 %v, [%a];\n\
 mad.lo.u32 %a, %v, 4, %base;\n ld.shared.u32 %v, [%a];\n mad.lo.u32 %a, %v, 4, %base;\n ld.shared.u32 %v, [%a];\n\
 mad.lo.u32 %a, %v, 4, %base;\n ld.shared.u32 %v, [%a];\n mad.lo.u32 %a, %v, 4, %base;\n ld.shared.u32 %v, [%a];\n\
 add.u32 %i, %i, 1;\n setp.lt.u32 %q, %i, %n;\n @%q bra LOOP;\n\
 mov.u64 %t1, %clock64;\n sub.u64 %t1, %t1, %t0;\n setp.ne.u32 %q, %t, 0;\n @%q bra END;\n\
 st.global.u64 [%o], %t1;\n st.global.u32 [%o+8], %v;\nEND:\n ret;\n}\n";

/// Streaming and re-reading kernels, an empty kernel, FFMA throughput and the atomics.
const RATE_PTX: &str = ".visible .entry copy4(.param .u64 a, .param .u64 b, .param .u64 n)\n{\n\
 .reg .b64 %a, %b, %n, %i, %st, %p;\n .reg .b32 %r, %s, %f<4>;\n .reg .pred %q;\n\
 ld.param.u64 %a, [a];\n ld.param.u64 %b, [b];\n ld.param.u64 %n, [n];\n\
 mov.u32 %r, %ctaid.x;\n mov.u32 %s, %ntid.x;\n mul.wide.u32 %i, %r, %s;\n mov.u32 %r, %tid.x;\n cvt.u64.u32 %p, %r;\n add.u64 %i, %i, %p;\n\
 mov.u32 %r, %nctaid.x;\n mul.wide.u32 %st, %r, %s;\n\
LOOP:\n setp.ge.u64 %q, %i, %n;\n @%q bra END;\n shl.b64 %p, %i, 4;\n add.u64 %p, %p, %a;\n ld.global.v4.f32 {%f0,%f1,%f2,%f3}, [%p];\n\
 shl.b64 %p, %i, 4;\n add.u64 %p, %p, %b;\n st.global.v4.f32 [%p], {%f0,%f1,%f2,%f3};\n add.u64 %i, %i, %st;\n bra LOOP;\nEND:\n ret;\n}\n\
.visible .entry reread(.param .u64 a, .param .u64 n, .param .u32 passes, .param .u64 out)\n{\n\
 .reg .b64 %a, %n, %i, %st, %p, %i0;\n .reg .b32 %r, %s, %k, %passes;\n .reg .f32 %sum, %f<4>;\n .reg .pred %q;\n\
 ld.param.u64 %a, [a];\n ld.param.u64 %n, [n];\n ld.param.u32 %passes, [passes];\n\
 mov.u32 %r, %ctaid.x;\n mov.u32 %s, %ntid.x;\n mul.wide.u32 %i0, %r, %s;\n mov.u32 %r, %tid.x;\n cvt.u64.u32 %p, %r;\n add.u64 %i0, %i0, %p;\n\
 mov.u32 %r, %nctaid.x;\n mul.wide.u32 %st, %r, %s;\n mov.f32 %sum, 0f00000000;\n mov.u32 %k, 0;\n\
PASS:\n mov.u64 %i, %i0;\nLOOP:\n setp.ge.u64 %q, %i, %n;\n @%q bra NEXT;\n shl.b64 %p, %i, 4;\n add.u64 %p, %p, %a;\n\
 ld.global.cg.v4.f32 {%f0,%f1,%f2,%f3}, [%p];\n add.f32 %sum, %sum, %f0;\n add.f32 %sum, %sum, %f1;\n add.f32 %sum, %sum, %f2;\n add.f32 %sum, %sum, %f3;\n\
 add.u64 %i, %i, %st;\n bra LOOP;\nNEXT:\n add.u32 %k, %k, 1;\n setp.lt.u32 %q, %k, %passes;\n @%q bra PASS;\n\
 setp.neu.f32 %q, %sum, 0f46407400;\n @%q bra END;\n ld.param.u64 %p, [out];\n st.global.f32 [%p], %sum;\nEND:\n ret;\n}\n\
.visible .entry empty()\n{\n ret;\n}\n\
.visible .entry stamp(.param .u64 out)\n{\n .reg .b64 %p, %g, %w;\n .reg .b32 %t, %b;\n .reg .pred %q;\n\
 mov.u32 %t, %tid.x;\n setp.ne.u32 %q, %t, 0;\n @%q bra END;\n mov.u64 %g, %globaltimer;\n mov.u32 %b, %ctaid.x;\n\
 ld.param.u64 %p, [out];\n mul.wide.u32 %w, %b, 8;\n add.u64 %p, %p, %w;\n st.global.u64 [%p], %g;\nEND:\n ret;\n}\n\
.visible .entry ffma(.param .u64 out, .param .u32 n)\n{\n\
 .reg .f32 %x<8>, %a;\n .reg .b32 %i, %n, %t;\n .reg .b64 %o, %w;\n .reg .pred %q;\n\
 ld.param.u32 %n, [n];\n mov.u32 %t, %tid.x;\n cvt.rn.f32.u32 %a, %t;\n mul.f32 %a, %a, 0f3A83126F;\n\
 add.f32 %x0, %a, 0f00000000;\n add.f32 %x1, %a, 0f3F800000;\n add.f32 %x2, %a, 0f40000000;\n add.f32 %x3, %a, 0f40400000;\n\
 add.f32 %x4, %a, 0f40800000;\n add.f32 %x5, %a, 0f40A00000;\n add.f32 %x6, %a, 0f40C00000;\n add.f32 %x7, %a, 0f40E00000;\n\
 mov.u32 %i, 0;\nLOOP:\n@FFMA@ add.u32 %i, %i, 1;\n setp.lt.u32 %q, %i, %n;\n @%q bra LOOP;\n\
 add.f32 %x0, %x0, %x1;\n add.f32 %x2, %x2, %x3;\n add.f32 %x4, %x4, %x5;\n add.f32 %x6, %x6, %x7;\n\
 add.f32 %x0, %x0, %x2;\n add.f32 %x4, %x4, %x6;\n add.f32 %x0, %x0, %x4;\n\
 mov.u32 %i, %ctaid.x;\n mov.u32 %n, %ntid.x;\n mad.lo.u32 %i, %i, %n, %t;\n ld.param.u64 %o, [out];\n mul.wide.u32 %w, %i, 4;\n add.u64 %o, %o, %w;\n\
 st.global.f32 [%o], %x0;\n ret;\n}\n\
.visible .entry g_same(.param .u64 p, .param .u32 n)\n{\n .reg .b64 %p;\n .reg .b32 %i, %n;\n .reg .pred %q;\n\
 ld.param.u64 %p, [p];\n ld.param.u32 %n, [n];\n mov.u32 %i, 0;\nLOOP:\n red.global.add.u32 [%p], 1;\n add.u32 %i, %i, 1;\n\
 setp.lt.u32 %q, %i, %n;\n @%q bra LOOP;\n ret;\n}\n\
.visible .entry g_warp(.param .u64 p, .param .u32 n)\n{\n .reg .b64 %p, %w;\n .reg .b32 %i, %n, %t;\n .reg .pred %q;\n\
 ld.param.u64 %p, [p];\n ld.param.u32 %n, [n];\n mov.u32 %t, %tid.x;\n and.b32 %t, %t, 31;\n mul.wide.u32 %w, %t, 4;\n add.u64 %p, %p, %w;\n\
 mov.u32 %i, 0;\nLOOP:\n red.global.add.u32 [%p], 1;\n add.u32 %i, %i, 1;\n setp.lt.u32 %q, %i, %n;\n @%q bra LOOP;\n ret;\n}\n\
.visible .entry g_distinct(.param .u64 p, .param .u32 n)\n{\n .reg .b64 %p, %w;\n .reg .b32 %i, %n, %t, %c;\n .reg .pred %q;\n\
 ld.param.u64 %p, [p];\n ld.param.u32 %n, [n];\n mov.u32 %t, %tid.x;\n mov.u32 %c, %ctaid.x;\n mov.u32 %i, %ntid.x;\n mad.lo.u32 %t, %c, %i, %t;\n\
 mul.wide.u32 %w, %t, 4;\n add.u64 %p, %p, %w;\n\
 mov.u32 %i, 0;\nLOOP:\n red.global.add.u32 [%p], 1;\n add.u32 %i, %i, 1;\n setp.lt.u32 %q, %i, %n;\n @%q bra LOOP;\n ret;\n}\n\
.visible .entry s_same(.param .u64 p, .param .u32 n)\n{\n .shared .align 4 .b32 s;\n .reg .b64 %p;\n .reg .b32 %i, %n, %t, %v;\n .reg .pred %q;\n\
 ld.param.u64 %p, [p];\n ld.param.u32 %n, [n];\n mov.u32 %t, %tid.x;\n setp.ne.u32 %q, %t, 0;\n @!%q st.shared.u32 [s], 0;\n bar.sync 0;\n\
 mov.u32 %i, 0;\nLOOP:\n red.shared.add.u32 [s], 1;\n add.u32 %i, %i, 1;\n setp.lt.u32 %q, %i, %n;\n @%q bra LOOP;\n bar.sync 0;\n\
 setp.ne.u32 %q, %t, 0;\n @%q bra END;\n ld.shared.u32 %v, [s];\n red.global.add.u32 [%p], %v;\nEND:\n ret;\n}\n";

/// One measured row.
struct Row {
    bench: &'static str,
    key: String,
    value: f64,
    unit: &'static str,
}

type Res<T> = Result<T, String>;

fn e<E: std::fmt::Display>(what: &str) -> impl Fn(E) -> String + '_ {
    move |err| format!("{what}: {err}")
}

/// The suite's state: the device, a context and its functions.
struct Suite {
    dev: Device,
    ctx: Context,
    clock_hz: f64,
    /// The modules loaded (their functions live as long as they do).
    mods: RefCell<Vec<Module>>,
}

impl Suite {
    fn func(&self, ptx: &str, name: &str) -> Res<Function> {
        let m = self.ctx.load_ptx(&format!("{HEADER}{ptx}")).map_err(e(name))?;
        let f = m.function(name).map_err(e(name))?;
        self.mods.borrow_mut().push(m);
        Ok(f)
    }

    /// Run `f` on `grid` x `block` threads and wait for it.
    fn run(&self, f: &Function, grid: u32, block: u32, args: &[Arg<'_>]) -> Res<()> {
        let fence = f.launch([grid, 1, 1], [block, 1, 1], 0, args).map_err(e("launch"))?;
        self.ctx.wait(fence).map_err(e("kernel"))
    }

    /// Launch `f` on `grid` x `block` threads without waiting.
    fn launch(&self, f: &Function, grid: u32, block: u32, args: &[Arg<'_>]) -> Res<()> {
        f.launch([grid, 1, 1], [block, 1, 1], 0, args).map(drop).map_err(e("launch"))
    }

    /// Milliseconds of simulated time `work` takes between two events on the default stream.
    fn timed(&self, work: impl FnOnce() -> Res<()>) -> Res<f64> {
        let s = self.ctx.default_stream();
        let (a, b) =
            (self.ctx.create_event(true).map_err(e("event"))?, self.ctx.create_event(true).map_err(e("event"))?);
        s.record(&a).map_err(e("record"))?;
        work()?;
        s.record(&b).map_err(e("record"))?;
        b.synchronize().map_err(e("event"))?;
        Ok(b.elapsed_ms_since(&a).map_err(e("elapsed"))? as f64)
    }
}

/// Run every benchmark; `rows` gets one row per quantity.
fn run_suite(su: &Suite, rows: &mut Vec<Row>) -> Res<()> {
    let cfg = su.dev.config().clone();
    let sms = cfg.board.sms;
    let out = su.ctx.alloc::<u64>(4).map_err(e("alloc"))?;
    let read0 = || -> Res<u64> {
        let mut v = [0u64; 4];
        out.copy_to(&mut v).map_err(e("read"))?;
        Ok(v[0])
    };
    su.run(&su.func(&RATE_PTX.replace("@FFMA@", ""), "empty")?, 1, 32, &[])?;

    // Pointer chases: warm (ca, cg) and cold.
    let ca = su.func(&chase_ptx("chase_ca", "ca", true), "chase_ca")?;
    let cg = su.func(&chase_ptx("chase_cg", "cg", true), "chase_cg")?;
    let cold = su.func(&chase_ptx("chase_cold", "ca", false), "chase_cold")?;
    let chases: &[(&Function, &str, u64, u64)] = &[
        (&ca, "ca", 16 << 10, 128),
        (&ca, "ca", 32 << 10, 128),
        (&ca, "ca", 128 << 10, 128),
        (&ca, "ca", 256 << 10, 128),
        (&ca, "ca", 512 << 10, 128),
        (&cg, "cg", 32 << 10, 128),
        (&cg, "cg", 1 << 20, 256),
        (&cg, "cg", 4 << 20, 1024),
        (&cold, "cold", 1 << 20, 256),
    ];
    // Every ring keeps its memory until the end, so that the cold one is memory no chase
    // has read (a real part's L2 would be scrubbed instead).
    let mut rings = Vec::new();
    for &(f, kind, foot, stride) in chases {
        let m = foot / stride;
        let mut buf = su.ctx.alloc::<u64>((foot / 8) as usize).map_err(e("alloc"))?;
        let base = buf.device_ptr();
        let mut ring = vec![0u64; (foot / 8) as usize];
        for k in 0..m {
            ring[(k * stride / 8) as usize] = base + ((k + 1) % m) * stride;
        }
        buf.copy_from(&ring).map_err(e("write"))?;
        let steps = if kind == "cold" { m } else { m.max(1024) }.div_ceil(16) * 16;
        su.run(f, 1, 1, &[buf.arg(), Arg::U32(steps as u32), out.arg()])?;
        rings.push(buf);
        rows.push(Row {
            bench: "load_latency",
            key: format!("{kind}_f{}K_s{stride}", foot >> 10),
            value: read0()? as f64 / steps as f64,
            unit: "cycles",
        });
    }

    // Dependent chains.
    let mut io = su.ctx.alloc::<u64>(8).map_err(e("alloc"))?;
    let chains: &[(&str, &str, &str, [f64; 3])] = &[
        ("fmul", "f32", "mul.f32 %x, %x, %a", [1.0, 0.9999999, 0.0]),
        ("fadd", "f32", "add.f32 %x, %x, %a", [1.0, 1e-7, 0.0]),
        ("ffma", "f32", "fma.rn.f32 %x, %x, %a, %b", [1.0, 0.999, 0.001]),
        ("imad", "s32", "mad.lo.s32 %x, %x, %x, %a", [1.0, 3.0, 7.0]),
        ("dfma", "f64", "fma.rn.f64 %x, %x, %a, %b", [1.0, 0.999, 0.001]),
        ("dadd", "f64", "add.f64 %x, %x, %a", [1.0, 1e-9, 0.0]),
        ("rsqrt", "f32", "rsqrt.approx.f32 %x, %x", [2.0, 0.0, 0.0]),
        ("sinf", "f32", "sin.approx.f32 %x, %x", [0.5, 0.0, 0.0]),
        ("fdiv", "f32", "div.rn.f32 %x, %a, %x", [1.5, 1.0, 0.0]),
    ];
    let n = 32u32;
    for &(key, ty, op, init) in chains {
        let bytes: Vec<u8> = match ty {
            "f64" => init.iter().flat_map(|v| v.to_le_bytes()).collect(),
            "s32" => init.iter().flat_map(|v| (*v as i32).to_le_bytes()).collect(),
            _ => init.iter().flat_map(|v| (*v as f32).to_le_bytes()).collect(),
        };
        let mut words = [0u64; 8];
        for (k, c) in bytes.chunks(8).enumerate() {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            words[k] = u64::from_le_bytes(w);
        }
        io.copy_from(&words).map_err(e("write"))?;
        let name = format!("lat_{key}");
        let f = su.func(&chain_ptx(&name, ty, op), &name)?;
        // Twice, as the reference program does: the operands' first load is then an L2 hit.
        su.run(&f, 1, 32, &[io.arg(), Arg::U32(1), out.arg()])?;
        su.run(&f, 1, 32, &[io.arg(), Arg::U32(n), out.arg()])?;
        rows.push(Row {
            bench: "alu_latency",
            key: key.into(),
            value: read0()? as f64 / (32.0 * n as f64),
            unit: "cycles",
        });
    }

    // Shared-memory bank conflicts.
    let f = su.func(SHARED_PTX, "shared_stride")?;
    for stride in [0u32, 1, 2, 4, 8, 16, 32, 33] {
        su.run(&f, 1, 32, &[Arg::U32(stride), Arg::U32(64), out.arg()])?;
        rows.push(Row {
            bench: "shared_access",
            key: format!("stride{stride}"),
            value: read0()? as f64 / (8.0 * 64.0),
            unit: "cycles",
        });
    }

    // FFMA throughput: two blocks of 256 threads per SM, 8 chains x 8 x 16.
    let mut ffma = String::new();
    for _ in 0..8 {
        for k in 0..8 {
            let _ = writeln!(ffma, " fma.rn.f32 %x{k}, %x{k}, 0f3F7FBE77, 0f3F000000;");
        }
    }
    let f = su.func(&RATE_PTX.replace("@FFMA@", &ffma), "ffma")?;
    let (blocks, threads, iters) = (sms * 2, 256u32, 16u32);
    let fo = su.ctx.alloc::<f32>((blocks * threads) as usize).map_err(e("alloc"))?;
    su.run(&f, blocks, threads, &[fo.arg(), Arg::U32(1)])?;
    let ms = su.timed(|| su.launch(&f, blocks, threads, &[fo.arg(), Arg::U32(iters)]))?;
    let fmas = blocks as f64 * threads as f64 * iters as f64 * 64.0;
    rows.push(Row {
        bench: "alu_throughput",
        key: "ffma_per_cycle_per_sm".into(),
        value: fmas / (ms * 1e-3 * su.clock_hz) / sms as f64,
        unit: "ffma/cycle/SM",
    });

    // Bandwidths: a streaming copy, an L2-resident re-read, the copy engines.
    let rates = |name: &str| su.func(&RATE_PTX.replace("@FFMA@", ""), name);
    let bytes: u64 = 32 << 20;
    let mut a = su.ctx.alloc::<u8>(bytes as usize).map_err(e("alloc"))?;
    let b = su.ctx.alloc::<u8>(bytes as usize).map_err(e("alloc"))?;
    let copy4 = rates("copy4")?;
    let grid = sms * 8;
    let args = [a.arg(), b.arg(), Arg::U64(bytes / 16)];
    su.run(&copy4, grid, 256, &args)?;
    let ms = su.timed(|| su.launch(&copy4, grid, 256, &args))?;
    rows.push(Row {
        bench: "bandwidth",
        key: "dram_copy_kernel".into(),
        value: 2.0 * bytes as f64 / (ms * 1e6),
        unit: "GB/s",
    });
    let reread = rates("reread")?;
    let l2b = (cfg.l2.bytes as u64 / 4).min(bytes);
    let passes = 4;
    su.run(&reread, grid, 256, &[a.arg(), Arg::U64(l2b / 16), Arg::U32(1), b.arg()])?;
    let ms = su.timed(|| su.launch(&reread, grid, 256, &[a.arg(), Arg::U64(l2b / 16), Arg::U32(passes), b.arg()]))?;
    rows.push(Row {
        bench: "bandwidth",
        key: "l2_read_kernel".into(),
        value: l2b as f64 * passes as f64 / (ms * 1e6),
        unit: "GB/s",
    });
    let s = su.ctx.default_stream();
    let ms = su.timed(|| s.copy_async(b.device_ptr(), a.device_ptr(), bytes).map_err(e("copy")))?;
    rows.push(Row {
        bench: "bandwidth",
        key: "memcpy_dtod".into(),
        value: 2.0 * bytes as f64 / (ms * 1e6),
        unit: "GB/s",
    });
    let hb: u64 = 16 << 20;
    let pinned: HostBuffer<u8> = su.ctx.alloc_host(hb as usize).map_err(e("alloc_host"))?;
    for (key, dst, src) in [
        ("memcpy_htod_pinned", a.device_ptr(), pinned.device_ptr()),
        ("memcpy_dtoh_pinned", pinned.device_ptr(), a.device_ptr()),
    ] {
        let ms = su.timed(|| s.copy_async(dst, src, hb).map_err(e("copy")))?;
        rows.push(Row { bench: "bandwidth", key: key.into(), value: hb as f64 / (ms * 1e6), unit: "GB/s" });
    }
    // Pageable memory: staged by the host through the driver's pinned buffers.
    let mut pageable = vec![1u8; hb as usize];
    let ms = su.timed(|| a.copy_from(&pageable).map_err(e("copy")))?;
    rows.push(Row {
        bench: "bandwidth",
        key: "memcpy_htod_pageable".into(),
        value: hb as f64 / (ms * 1e6),
        unit: "GB/s",
    });
    let ms = su.timed(|| a.copy_to(&mut pageable).map_err(e("copy")))?;
    rows.push(Row {
        bench: "bandwidth",
        key: "memcpy_dtoh_pageable".into(),
        value: hb as f64 / (ms * 1e6),
        unit: "GB/s",
    });
    for small in [4u64, 4096, 65536] {
        let ms = su.timed(|| s.copy_async(a.device_ptr(), pinned.device_ptr(), small).map_err(e("copy")))?;
        rows.push(Row {
            bench: "copy_latency",
            key: format!("memcpy_htod_pinned_{small}B"),
            value: ms * 1e3,
            unit: "us",
        });
    }

    // Atomics: one block of 256 threads per SM, 4 each.
    let (blocks, threads, n) = (sms, 256u32, 4u32);
    let total = blocks as f64 * threads as f64 * n as f64;
    for key in ["g_same", "g_warp", "g_distinct", "s_same"] {
        let f = rates(key)?;
        let args = [a.arg(), Arg::U32(n)];
        su.run(&f, blocks, threads, &args)?;
        let ms = su.timed(|| su.launch(&f, blocks, threads, &args))?;
        let name = match key {
            "g_same" => "global_same_addr",
            "g_warp" => "global_warp_addrs",
            "g_distinct" => "global_distinct",
            _ => "shared_same_addr",
        };
        rows.push(Row {
            bench: "atomic_per_cycle",
            key: name.into(),
            value: total / (ms * 1e-3 * su.clock_hz),
            unit: "atomic/cycle",
        });
    }

    // Launches: an empty kernel event to event, and back to back.
    let empty = rates("empty")?;
    for (warps, blocks) in [(1u32, 1u32), (1, 1024), (1, 4096), (32, 1024)] {
        let ms = su.timed(|| su.launch(&empty, blocks, warps * 32, &[]))?;
        rows.push(Row { bench: "dispatch_us", key: format!("w{warps}_b{blocks}"), value: ms * 1e3, unit: "us" });
    }
    let launches = 20;
    let ms = su.timed(|| {
        for _ in 0..launches {
            su.launch(&empty, 1, 32, &[])?;
        }
        Ok(())
    })?;
    rows.push(Row {
        bench: "launch",
        key: "back_to_back_per_launch".into(),
        value: ms * 1e3 / launches as f64,
        unit: "us",
    });
    // Block starts: each block's first thread stamps %globaltimer; first to last.
    let stamp = rates("stamp")?;
    let blocks = 2048u32;
    let out = su.ctx.alloc::<u64>(blocks as usize).map_err(e("alloc"))?;
    for threads in [32u32, 256, 1024] {
        su.run(&stamp, blocks, threads, &[out.arg()])?;
        let mut t = vec![0u64; blocks as usize];
        out.copy_to(&mut t).map_err(e("read"))?;
        let spread = t.iter().max().unwrap_or(&0) - t.iter().min().unwrap_or(&0);
        rows.push(Row {
            bench: "block_start_spread_ns",
            key: format!("t{threads}_b{blocks}_first_to_last"),
            value: spread as f64,
            unit: "ns",
        });
    }
    Ok(())
}

/// `rgdev bench fidelity [--preset P] [--check]`.
pub fn main(args: &[String]) -> ExitCode {
    let mut preset = std::env::var("RGDEV_PRESET").unwrap_or_else(|_| "gv100".into());
    let mut check = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--preset" => match it.next() {
                Some(p) => preset = p.clone(),
                None => return usage("--preset needs a name"),
            },
            "--check" => check = true,
            "-h" | "--help" => {
                println!(
                    "usage: rgdev bench fidelity [--preset P] [--check]\n\n\
                     Run the fidelity suite on preset P (default: $RGDEV_PRESET or gv100) and print each\n\
                     quantity beside the real part's figure (h200: an H200 measured by the team; gv100: a V100\n\
                     as published) with the ratio. --check: exit 1 when a row with a tolerance is outside it."
                );
                return ExitCode::SUCCESS;
            }
            other => return usage(&format!("unknown argument `{other}`")),
        }
    }
    let config = match backend_user::preset::load(&preset) {
        Ok(c) => c,
        Err(err) => {
            eprintln!("rgdev: {err}");
            return ExitCode::FAILURE;
        }
    };
    let clock_hz = config.board.clock_mhz as f64 * 1e6;
    let dev = match Device::open_with(DeviceOptions { config, ..DeviceOptions::default() }) {
        Ok(d) => d,
        Err(err) => {
            eprintln!("rgdev: no device: {err}");
            return ExitCode::FAILURE;
        }
    };
    let ctx = match dev.create_context() {
        Ok(c) => c,
        Err(err) => {
            eprintln!("rgdev: {err}");
            return ExitCode::FAILURE;
        }
    };
    let su = Suite { dev, ctx, clock_hz, mods: RefCell::new(Vec::new()) };
    let mut rows = Vec::new();
    if let Err(err) = run_suite(&su, &mut rows) {
        eprintln!("rgdev: fidelity suite: {err}");
        return ExitCode::FAILURE;
    }
    let refs = reference(&preset).map(parse_reference).unwrap_or_default();
    if refs.is_empty() {
        println!("# no reference figures for `{preset}` (fidelity/ has them for h200 and gv100): rgdev's figures only");
    }
    println!("# rgdev bench fidelity --preset {preset}: bench,key,rgdev,reference,unit,ratio,tolerance,verdict");
    let (mut checked, mut outside) = (0, 0);
    let (mut err_checked, mut err_all, mut compared) = (0.0f64, 0.0f64, 0);
    for r in &rows {
        let found = refs.iter().find(|x| x.bench == r.bench && x.key == r.key);
        match found {
            Some(x) => {
                let ratio = r.value / x.value;
                err_all += (ratio - 1.0).abs();
                compared += 1;
                if x.tolerance.is_some() {
                    err_checked += (ratio - 1.0).abs();
                }
                let verdict = match x.tolerance {
                    Some(t) if (ratio - 1.0).abs() <= t => {
                        checked += 1;
                        "within"
                    }
                    Some(_) => {
                        checked += 1;
                        outside += 1;
                        "OUTSIDE"
                    }
                    None => "reported",
                };
                let tol = x.tolerance.map_or("-".to_string(), |t| format!("{:.0}%", t * 100.0));
                debug_assert_eq!(x.unit, r.unit);
                println!("{},{},{:.4},{:.4},{},{:.3},{tol},{verdict}", r.bench, r.key, r.value, x.value, r.unit, ratio);
            }
            None => println!("{},{},{:.4},,{},,,", r.bench, r.key, r.value, r.unit),
        }
    }
    println!("# {checked} rows checked against a tolerance, {outside} outside");
    if compared > 0 {
        println!(
            "# mean absolute error: {:.1}% over the checked rows, {:.1}% over all {compared} rows with a reference",
            100.0 * err_checked / checked.max(1) as f64,
            100.0 * err_all / compared as f64
        );
    }
    if check && outside > 0 { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}

fn usage(msg: &str) -> ExitCode {
    eprintln!("rgdev bench fidelity: {msg} (rgdev bench fidelity --help)");
    ExitCode::FAILURE
}
