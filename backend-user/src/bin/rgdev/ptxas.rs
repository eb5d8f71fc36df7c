//! `rgdev ptxas`: compile PTX as NVIDIA's ptxas does, with its common flags, its `-v`
//! report, and one rgdev line per kernel: the occupancy on the preset and what limits it.

use backend_user::preset;
use fake_pci::config::DeviceConfig;
use hw::occupancy::{SmLimits, blocks_per_sm, limited_by, suggested_block};
use std::process::ExitCode;

/// How to call it.
pub const USAGE: &str =
    "rgdev ptxas [-arch=sm_XX] [-v] [-o OUT] [-maxrregcount N] [--warn-on-spills] [--preset P] FILE.ptx";

const HELP: &str = "\
Compile PTX to an rgdev module, as NVIDIA's ptxas compiles it to a cubin.

Options:
  -arch=sm_XX, --gpu-name sm_XX   target architecture (default: the preset's, sm_70 for gv100);
                                  without --preset, sm_2x picks the gf100 preset
  -v, --verbose                   print each function's resources (ptxas's -v report) and its
                                  occupancy on the preset
  -o FILE, --output-file FILE     write the module (an rgdev container) to FILE
  -maxrregcount N                 registers per thread no function may exceed (spilling to fit)
  --warn-on-spills                warn about every function that spills
  -O N, --opt-level N             accepted (rgdev's JIT has one optimization level)
  --preset P                      the preset whose SM the occupancy is measured on
                                  (a built-in name or a .toml file; default: RGDEV_PRESET, gv100)
  -h, --help                      this help";

/// The parsed command line.
#[derive(Debug, Default, PartialEq)]
struct Args {
    input: Option<String>,
    output: Option<String>,
    arch: Option<(String, u32)>,
    verbose: bool,
    max_regs: Option<u32>,
    warn_spills: bool,
    preset: Option<String>,
    help: bool,
}

/// `sm_XY` (with an optional `a`/`f` suffix) and its compute capability major.
fn arch(v: &str) -> Result<(String, u32), String> {
    let digits = v.strip_prefix("sm_").map(|d| d.trim_end_matches(['a', 'f']));
    match digits {
        Some(d) if (2..=3).contains(&d.len()) && d.bytes().all(|b| b.is_ascii_digit()) => {
            let n: u32 = d.parse().map_err(|_| String::new())?;
            Ok((v.to_string(), n / 10))
        }
        _ => Err(format!("Value '{v}' is not defined for option 'gpu-name'")),
    }
}

fn parse(args: &[String]) -> Result<Args, String> {
    let mut a = Args::default();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        // `-flag=value`, `--flag=value` or `-flag value`.
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with('-') => (f, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        let mut value = |name: &str| -> Result<String, String> {
            inline.clone().or_else(|| it.next().cloned()).ok_or_else(|| format!("option `{name}` needs a value"))
        };
        match flag {
            "-h" | "--help" => a.help = true,
            "-v" | "--verbose" => a.verbose = true,
            "--warn-on-spills" | "-warn-spills" => a.warn_spills = true,
            "-o" | "--output-file" => a.output = Some(value(flag)?),
            "-arch" | "--gpu-name" => a.arch = Some(arch(&value(flag)?)?),
            "--preset" => a.preset = Some(value(flag)?),
            // The optimization level: rgdev's JIT has one.
            "-O" | "--opt-level" => {
                let v = value(flag)?;
                if !matches!(v.as_str(), "0" | "1" | "2" | "3") {
                    return Err(format!("`{flag}`: `{v}` is not an optimization level (0-3)"));
                }
            }
            "-O0" | "-O1" | "-O2" | "-O3" => {}
            "-maxrregcount" | "--maxrregcount" => {
                let v = value(flag)?;
                let n = v.parse::<u32>().ok().filter(|&n| n > 0);
                a.max_regs = Some(n.ok_or_else(|| format!("`{flag}`: `{v}` is not a register count"))?);
            }
            f if f.starts_with('-') && f.len() > 1 => return Err(format!("unknown option `{arg}`")),
            _ if a.input.is_some() => return Err(format!("more than one input file (`{arg}`)")),
            _ => a.input = Some(arg.clone()),
        }
    }
    Ok(a)
}

/// The SM occupancy is measured on: the preset given, else `RGDEV_PRESET`, else the one of
/// the architecture's family (gf100 for sm_2x, gv100 otherwise).
fn target(a: &Args) -> Result<DeviceConfig, String> {
    if let Some(p) = &a.preset {
        return preset::load(p);
    }
    if std::env::var(preset::ENV).is_ok_and(|v| !v.is_empty()) {
        return preset::from_env();
    }
    let name = match &a.arch {
        Some((_, major)) if *major <= 2 => "gf100",
        _ => "gv100",
    };
    preset::load(name)
}

/// Occupancy of one kernel on `sm`: at its `.maxntid` if given, else at the block size the
/// occupancy API would suggest.
fn occupancy_line(k: &ptx::Kernel, sm: &SmLimits, preset: &str) -> String {
    let max = k.max_threads.unwrap_or(1024).min(1024);
    let blocks = |b| blocks_per_sm(sm, b, k.regs, k.shared_bytes);
    let threads = if k.max_threads.is_some() { Some(max) } else { suggested_block(max, blocks).map(|(b, _)| b) };
    match threads.and_then(|t| Some((t, limited_by(sm, t, k.regs, k.shared_bytes)?))) {
        Some((t, (n, limit))) => {
            let warps = n * t.div_ceil(32);
            let of = sm.threads / 32;
            format!(
                "rgdev info    : Occupancy of '{}' on {preset}: {t} threads per block, {n} block{} per SM, {warps} of {of} warps ({}%), limited by {}",
                k.name,
                if n == 1 { "" } else { "s" },
                warps * 100 / of.max(1),
                limit.name()
            )
        }
        None => format!("rgdev info    : Occupancy of '{}' on {preset}: no block of it fits an SM", k.name),
    }
}

/// Run `rgdev ptxas` with `args` (after the subcommand).
pub fn main(args: &[String]) -> ExitCode {
    let a = match parse(args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("rgdev ptxas: {e}\nusage: {USAGE}");
            return ExitCode::from(2);
        }
    };
    if a.help {
        println!("usage: {USAGE}\n\n{HELP}");
        return ExitCode::SUCCESS;
    }
    let Some(input) = &a.input else {
        eprintln!("rgdev ptxas: no input file\nusage: {USAGE}");
        return ExitCode::from(2);
    };
    let cfg = match target(&a) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("rgdev ptxas: {e}");
            return ExitCode::from(2);
        }
    };
    let sm = cfg.sm_limits();
    let arch =
        a.arch.as_ref().map_or_else(|| format!("sm_{}{}", cfg.board.cc_major, cfg.board.cc_minor), |x| x.0.clone());
    let text = match std::fs::read(input) {
        Ok(b) => match String::from_utf8(b) {
            Ok(t) => t,
            Err(_) => {
                eprintln!("rgdev ptxas: {input}: not PTX text (not UTF-8)");
                return ExitCode::FAILURE;
            }
        },
        Err(e) => {
            eprintln!("rgdev ptxas: {input}: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(n) = a.max_regs.filter(|&n| n < ptx::compile::MIN_REG_LIMIT) {
        let lb = ptx::compile::MIN_REG_LIMIT;
        eprintln!(
            "ptxas warning : For profile {arch} adjusting per thread register count of {n} to lower bound of {lb}"
        );
    }
    let opts = ptx::Options { max_regs: a.max_regs, sm, ..ptx::Options::default() };
    let prog = match ptx::compile_ptx_with(&text, &opts) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("rgdev ptxas: {input}:{e}");
            return ExitCode::FAILURE;
        }
    };
    for k in prog.kernels.iter().filter(|k| a.warn_spills && (k.spill.0 > 0 || k.spill.1 > 0)) {
        eprintln!(
            "ptxas warning : Registers are spilled to local memory in function '{}', {} bytes spill stores, {} bytes spill loads",
            k.name, k.spill.0, k.spill.1
        );
    }
    if a.verbose {
        report(&prog, &arch, &sm, &cfg.name);
    }
    if let Some(out) = &a.output
        && let Err(e) = std::fs::write(out, prog.to_container())
    {
        eprintln!("rgdev ptxas: {out}: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// The `-v` report, in ptxas's format, and rgdev's occupancy line per kernel.
fn report(prog: &ptx::Program, arch: &str, sm: &SmLimits, preset: &str) {
    let mut module = format!("{} bytes gmem", prog.global_size);
    if prog.const_size > 0 {
        module += &format!(", {} bytes cmem[1]", prog.const_size);
    }
    println!("ptxas info    : {module}");
    for k in &prog.kernels {
        println!("ptxas info    : Compiling entry function '{}' for '{arch}'", k.name);
        println!("ptxas info    : Function properties for {}", k.name);
        println!(
            "    {} bytes stack frame, {} bytes spill stores, {} bytes spill loads",
            k.local_bytes, k.spill.0, k.spill.1
        );
        let dynamic = if k.dynamic_shared { " + dynamic" } else { "" };
        let mut handles = String::new();
        for (n, what) in [(k.textures, "textures"), (k.surfaces, "surfaces")] {
            if n > 0 {
                handles += &format!(", {n} {what}");
            }
        }
        println!(
            "ptxas info    : Used {} registers, {} bytes smem{dynamic}, {} bytes lmem, {} bytes cmem[0]{handles}",
            k.regs, k.shared_bytes, k.local_bytes, k.param_bytes
        );
        println!("{}", occupancy_line(k, sm, preset));
    }
    println!("rgdev info    : {} instructions, {} bytes of code", prog.code.len(), prog.code.len() * 16);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Result<Args, String> {
        parse(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn ptxas_flags_in_their_spellings() {
        let a =
            args(&["-arch=sm_70", "-v", "k.ptx", "-o", "k.rgm", "-maxrregcount", "32", "--warn-on-spills"]).unwrap();
        assert_eq!(a.arch, Some(("sm_70".into(), 7)));
        assert!(a.verbose && a.warn_spills);
        assert_eq!((a.input.as_deref(), a.output.as_deref(), a.max_regs), (Some("k.ptx"), Some("k.rgm"), Some(32)));
        let b = args(&["--gpu-name", "sm_90a", "--maxrregcount=40", "--output-file=x", "k.ptx"]).unwrap();
        assert_eq!((b.arch, b.max_regs, b.output.as_deref()), (Some(("sm_90a".into(), 9)), Some(40), Some("x")));
        assert_eq!(args(&["-arch", "sm_20", "k.ptx"]).unwrap().arch, Some(("sm_20".into(), 2)));
        assert!(args(&["-arch=compute_70", "k.ptx"]).unwrap_err().contains("'compute_70'"));
        assert!(args(&["-maxrregcount", "0", "k.ptx"]).is_err());
        assert!(args(&["-maxrregcount"]).unwrap_err().contains("needs a value"));
        assert!(args(&["--frob", "k.ptx"]).unwrap_err().contains("`--frob`"));
        assert!(args(&["a.ptx", "b.ptx"]).unwrap_err().contains("more than one input"));
        assert!(args(&["--help"]).unwrap().help);
    }
}
