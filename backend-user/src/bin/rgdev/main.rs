//! `rgdev`: inspect the simulated GPU and run the demo job.
//!
//! ```text
//! rgdev info [--preset P] [--json] deviceQuery's facts, PCI identity, BOOT_0, BARs; a system's topology
//! rgdev demo [--preset P] [--mmio-trace FILE [--mmio-filter SPEC] [--mmio-fold]]
//!                                 copies, memsets, fences and kernels, checked
//! rgdev run [--preset P] [--set K=V] [--stats] [--summary [--csv]] [--stats-json FILE] [--stats-csv FILE]
//!           [--trace FILE.json] [--mmio-trace FILE [--mmio-filter SPEC] [--mmio-no-fold]] [--check TOOL] PROGRAM ARGS...
//!                                  TOOL: memcheck, racecheck, initcheck, synccheck (comma list) or all
//!                                 run a CUDA Driver API program on the simulated GPU
//! rgdev ptxas [-arch=sm_XX] [-v] [-o OUT] [-maxrregcount N] [--warn-on-spills] [--preset P] FILE.ptx
//!                                 compile PTX to an rgdev module as ptxas does (`-v`: resources
//!                                 and occupancy per kernel)
//! rgdev cc [-c] [-o OUT] [-arch=sm_XX] [-I DIR] [-D NAME] [-L DIR] [-l LIB] ... FILES...
//!                                 compile and link CUDA programs (.cu, .c, .cpp) with clang
//!                                 against rgdev's headers and libcudart.so.12, as nvcc does
//! rgdev preset list | show NAME|FILE.toml   the built-in presets; a preset as an editable file
//! rgdev timeline TRACE.json -o OUT.svg      render a `run --trace` timeline as an SVG Gantt chart
//! ```
//!
//! The command line is clap's: `--help` (and `help CMD`) on stdout with status 0,
//! `--version`, errors that name the bad argument (status 2). `ptxas` and `cc` parse
//! nvcc-style options themselves (`-arch=sm_70`, `-Xcompiler A,B`) and have their own help.
//!
//! A preset P is a built-in name or a TOML file (`RGDEV_PRESET` does the same).

use backend_user::{Arg, ClockMode, Device, DeviceOptions, MemsetValue, Result, StreamHandle, preset};
use clap::{Args, Parser, Subcommand};
use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod cc;
mod fidelity;
mod ptxas;
mod signals;
mod stats;
mod timeline;

/// rgdev: a Gdev-style CUDA runtime and the simulated GPU it drives.
#[derive(Parser)]
#[command(name = "rgdev", version, propagate_version = true, arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// The simulated GPU as deviceQuery describes a GPU, with its PCI identity and preset.
    Info {
        #[command(flatten)]
        dev: DeviceArgs,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Copies, memsets, fences and kernels on the simulated GPU, checked against the host.
    Demo {
        #[command(flatten)]
        dev: DeviceArgs,
        /// Run the device on a thread of its own instead of the stepped clock.
        #[arg(long)]
        threaded: bool,
    },
    /// Run a CUDA program (Driver or Runtime API) on the simulated GPU.
    Run(RunArgs),
    /// Compile PTX to an rgdev module as ptxas does (`rgdev ptxas --help`).
    #[command(disable_help_flag = true)]
    Ptxas {
        /// ptxas's options and the PTX file.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Compile and link CUDA programs with clang, as nvcc does (`rgdev cc --help`).
    #[command(disable_help_flag = true)]
    Cc {
        /// nvcc-style options and the input files.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// The timing model against a real GPU's figures (`rgdev bench fidelity --help`)
    #[command(disable_help_flag = true)]
    Bench {
        /// The benchmark (`fidelity`) and its options.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// The built-in presets, and a preset as an editable file.
    Preset {
        #[command(subcommand)]
        cmd: PresetCmd,
    },
    /// Statistics files (`run --stats-json`) of many runs.
    Stats {
        #[command(subcommand)]
        cmd: StatsCmd,
    },
    /// Render a `run --trace` timeline as an SVG Gantt chart.
    Timeline {
        /// The Chrome trace (`rgdev run --trace`).
        trace: PathBuf,
        /// The SVG to write.
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
    },
}

#[derive(Subcommand)]
enum StatsCmd {
    /// One table of many runs: a row per kernel name and copy kind of each, with the
    /// configuration parameters that differ between the runs as columns.
    Merge {
        /// Statistics files (`rgdev run --stats-json`).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// CSV instead of aligned text.
        #[arg(long)]
        csv: bool,
    },
}

#[derive(Subcommand)]
enum PresetCmd {
    /// The built-in presets.
    List,
    /// A preset (a built-in name or a TOML file) as TOML.
    Show {
        /// A built-in preset's name or a TOML file.
        preset: String,
    },
}

/// The device a command opens.
#[derive(Args)]
struct DeviceArgs {
    /// A built-in preset or a TOML file (also RGDEV_PRESET).
    #[arg(long, value_name = "P")]
    preset: Option<String>,
    /// Override a preset parameter (repeatable), e.g. `--set l2.bytes=1048576`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    /// Write the MMIO trace (every register access from power-on) to FILE (`--trace` is
    /// the old name).
    #[arg(long = "mmio-trace", alias = "trace", value_name = "FILE")]
    trace: Option<PathBuf>,
    /// What the MMIO trace keeps: units (PFIFO), registers (NV_PFIFO_RUNLIST) and windows
    /// (bar0, bar1, pramin, config), a comma list; `-X` leaves X out.
    #[arg(long, value_name = "SPEC", value_parser = mmio_filter, requires = "trace", allow_hyphen_values = true)]
    mmio_filter: Option<String>,
    /// Fold runs of BAR1 and PRAMIN words into one line each.
    #[arg(long, requires = "trace")]
    mmio_fold: bool,
}

#[derive(Args)]
struct RunArgs {
    /// A built-in preset or a TOML file.
    #[arg(long, value_name = "P")]
    preset: Option<String>,
    /// Override a preset parameter (repeatable), e.g. `--set l2.bytes=1048576`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    /// Print launches, copies and simulated time at exit.
    #[arg(long)]
    stats: bool,
    /// Print nvprof-style summary tables at exit (kernels by name, copies by kind).
    #[arg(long)]
    summary: bool,
    /// With --summary: the tables as CSV.
    #[arg(long)]
    csv: bool,
    /// Write per-kernel and per-copy statistics as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    stats_json: Option<PathBuf>,
    /// Write the statistics as CSV (a row per kernel and per copy) to FILE.
    #[arg(long, value_name = "FILE")]
    stats_csv: Option<PathBuf>,
    /// Write a Chrome trace (Perfetto, chrome://tracing) to FILE.
    #[arg(long, value_name = "FILE.json")]
    trace: Option<PathBuf>,
    /// Write the MMIO trace (every register access from the probe on, mmiotrace-like text) to FILE.
    #[arg(long, value_name = "FILE")]
    mmio_trace: Option<PathBuf>,
    /// What the MMIO trace keeps: units (PFIFO), registers (NV_PFIFO_RUNLIST) and windows
    /// (bar0, bar1, pramin, config), a comma list; `-X` leaves X out.
    #[arg(long, value_name = "SPEC", value_parser = mmio_filter, requires = "mmio_trace", allow_hyphen_values = true)]
    mmio_filter: Option<String>,
    /// Keep BAR1 and PRAMIN accesses word by word (by default a run is one line).
    #[arg(long, requires = "mmio_trace")]
    mmio_no_fold: bool,
    /// Sanitizers: memcheck, racecheck, initcheck, synccheck (a comma list) or all.
    #[arg(long, value_name = "TOOL", value_parser = check_tools)]
    check: Option<String>,
    /// The program and its arguments (`--` is optional).
    #[arg(required = true, trailing_var_arg = true, value_name = "PROGRAM")]
    program: Vec<OsString>,
}

fn check_tools(v: &str) -> std::result::Result<String, String> {
    let known = ["memcheck", "racecheck", "initcheck", "synccheck", "all"];
    match v.split(',').find(|t| !known.contains(&t.trim())) {
        Some(bad) => Err(format!("unknown tool `{bad}` (memcheck, racecheck, initcheck, synccheck, all)")),
        None => Ok(v.to_string()),
    }
}

fn mmio_filter(v: &str) -> std::result::Result<String, String> {
    backend_user::TraceFilter::parse(v, true).map(|_| v.to_string())
}

/// `rgdev preset list|show`.
fn preset_cmd(cmd: PresetCmd) -> ExitCode {
    match cmd {
        PresetCmd::List => {
            for (name, what) in fake_pci::config::PRESETS {
                println!("{name:22} {what}");
            }
            for (name, what) in fake_pci::system::SYSTEM_PRESETS {
                println!("{name:22} system: {what}");
            }
            ExitCode::SUCCESS
        }
        PresetCmd::Show { preset: spec } => match preset::load_system(&spec) {
            Ok(sys) if sys.len() > 1 || fake_pci::system::SystemConfig::preset(&spec).is_some() => {
                print!("{}", preset::system_to_toml(&sys));
                ExitCode::SUCCESS
            }
            Ok(sys) => {
                print!("{}", preset::to_toml(&sys.gpus[0]));
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("rgdev preset: {e}");
                ExitCode::FAILURE
            }
        },
    }
}

/// Make sure an output file can be written before the program runs (created empty).
fn writable(flag: &str, p: &Path) -> std::result::Result<PathBuf, String> {
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    std::fs::File::create(&abs).map_err(|e| format!("{flag} {}: {e}", p.display()))?;
    Ok(abs)
}

/// Run a dynamically linked CUDA program against rgdev's libcuda.so.1, which is found
/// beside this executable (cargo puts both in `target/<profile>`) and put first on the
/// loader's path. `--stats` makes the library print launches, copies and simulated time at
/// exit (RGDEV_STATS). Output files are checked writable first; one the library could not
/// write by the end makes the exit status non-zero.
fn run(a: RunArgs) -> ExitCode {
    let mut env: Vec<(&str, OsString)> = Vec::new();
    if a.stats {
        env.push(("RGDEV_STATS", "1".into()));
    }
    if let Some(c) = &a.check {
        env.push(("RGDEV_CHECK", c.into()));
    }
    if let Some(f) = &a.mmio_filter {
        env.push(("RGDEV_MMIO_FILTER", f.into()));
    }
    if a.mmio_no_fold {
        env.push(("RGDEV_MMIO_FOLD", "0".into()));
    }
    if a.summary || a.csv {
        env.push(("RGDEV_SUMMARY", if a.csv { "csv" } else { "1" }.into()));
    }
    // With overrides the program gets the effective configuration as a file of its own.
    let mut effective = None;
    if !a.sets.is_empty() {
        // A system's GPUs come from its `gpu` preset: --set changes one device.
        let system = a.preset.as_deref().map_or_else(preset::system_from_env, preset::load_system);
        if let Ok(s) = system.as_ref()
            && s.len() > 1
        {
            eprintln!(
                "rgdev run: --set changes one device, and `{}` is a system of {} GPUs (write a system file whose `gpu` is a changed device file)",
                s.name,
                s.len()
            );
            return ExitCode::FAILURE;
        }
        let cfg = a.preset.as_deref().map_or_else(preset::from_env, preset::load).and_then(|mut c| {
            preset::apply_sets(&mut c, &a.sets)?;
            Ok(c)
        });
        let file = std::env::temp_dir().join(format!("rgdev-run-{}.toml", std::process::id()));
        let written = cfg
            .and_then(|c| std::fs::write(&file, preset::to_toml(&c)).map_err(|e| format!("{}: {e}", file.display())));
        if let Err(e) = written {
            eprintln!("rgdev run: {e}");
            return ExitCode::FAILURE;
        }
        env.push((preset::ENV, file.clone().into()));
        effective = Some(file);
    } else if let Some(p) = &a.preset {
        // A device or a system (libcuda.so.1 brings up every GPU of a system).
        if let Err(e) = preset::load_system(p) {
            eprintln!("rgdev run: {e}");
            return ExitCode::FAILURE;
        }
        // The program runs elsewhere in the tree: give it an absolute path to a file.
        let v =
            if p.contains('/') || p.ends_with(".toml") { std::path::absolute(p).map(Into::into) } else { Ok(p.into()) };
        env.push((preset::ENV, v.unwrap_or_else(|_| p.into())));
    }
    let mut outputs = Vec::new();
    for (flag, var, path) in [
        ("--stats-json", "RGDEV_STATS_JSON", &a.stats_json),
        ("--stats-csv", "RGDEV_STATS_CSV", &a.stats_csv),
        ("--trace", "RGDEV_TRACE", &a.trace),
        ("--mmio-trace", "RGDEV_MMIO_TRACE", &a.mmio_trace),
    ] {
        if let Some(p) = path {
            match writable(flag, p) {
                Ok(abs) => {
                    env.push((var, abs.clone().into()));
                    outputs.push(abs);
                }
                Err(e) => {
                    eprintln!("rgdev run: {e}");
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    if std::io::stderr().is_terminal() {
        env.push((backend_user::platform::PROGRESS_ENV, "1".into()));
    }
    let (prog, prog_args) = a.program.split_first().expect("clap requires the program");
    let dir = std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf));
    let Some(dir) = dir.filter(|d| d.join("libcuda.so.1").exists()) else {
        eprintln!("rgdev run: libcuda.so.1 is not beside this executable (build with `cargo build --release`)");
        return ExitCode::FAILURE;
    };
    let mut path = OsString::from(dir.as_os_str());
    if let Some(old) = std::env::var_os("LD_LIBRARY_PATH") {
        path.push(":");
        path.push(old);
    }
    let mut cmd = std::process::Command::new(prog);
    cmd.args(prog_args).env("LD_LIBRARY_PATH", path);
    cmd.envs(env);
    let status = cmd.spawn().and_then(|mut child| {
        signals::ignore_interrupts(); // the program gets them, writes its statistics, exits
        child.wait()
    });
    if let Some(f) = effective {
        let _ = std::fs::remove_file(f);
    }
    let prog = prog.to_string_lossy();
    let code = match status {
        Ok(st) => {
            use std::os::unix::process::ExitStatusExt;
            match (st.code(), st.signal()) {
                (Some(c), _) => ExitCode::from(c.clamp(0, 255) as u8),
                (None, sig) => {
                    eprintln!("rgdev run: {prog}: {st}");
                    return ExitCode::from(128 + sig.unwrap_or(0).clamp(0, 127) as u8); // the shell's convention
                }
            }
        }
        Err(e) => {
            eprintln!("rgdev run: {prog}: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The library writes the files at exit: one still empty was not written.
    for p in &outputs {
        if std::fs::metadata(p).is_ok_and(|m| m.len() == 0) {
            eprintln!("rgdev run: {} was not written (see the program's messages)", p.display());
            if code == ExitCode::SUCCESS {
                return ExitCode::FAILURE;
            }
        }
    }
    code
}

fn main() -> ExitCode {
    signals::default_sigpipe();
    let cli = Cli::parse();
    let (dev_args, clock, demo) = match cli.cmd {
        Cmd::Ptxas { args } => return ptxas::main(&args),
        Cmd::Cc { args } => return cc::main(&args),
        Cmd::Bench { args } => {
            return match args.split_first() {
                Some((b, rest)) if b == "fidelity" => fidelity::main(rest),
                _ => {
                    eprintln!("rgdev bench: name a benchmark: `rgdev bench fidelity [--preset P] [--check]`");
                    ExitCode::FAILURE
                }
            };
        }
        Cmd::Run(a) => return run(a),
        Cmd::Preset { cmd } => return preset_cmd(cmd),
        Cmd::Timeline { trace, output } => return timeline::main(&trace, &output),
        Cmd::Stats { cmd: StatsCmd::Merge { files, csv } } => return stats::merge(&files, csv),
        Cmd::Info { dev, json } => (dev, ClockMode::Stepped, Some(json)),
        Cmd::Demo { dev, threaded } => (dev, if threaded { ClockMode::Threaded } else { ClockMode::Stepped }, None),
    };
    if let Some(json) = demo {
        // `info` takes systems: every GPU, and the topology.
        let sys = dev_args.preset.as_deref().map_or_else(preset::system_from_env, preset::load_system);
        match sys {
            Ok(mut sys) if sys.len() > 1 => {
                if dev_args.trace.is_some() {
                    eprintln!(
                        "rgdev: --mmio-trace of a system of several GPUs is not supported yet (trace one GPU's preset)"
                    );
                    return ExitCode::FAILURE;
                }
                for g in &mut sys.gpus {
                    if let Err(e) = preset::apply_sets(g, &dev_args.sets) {
                        eprintln!("rgdev: {e}");
                        return ExitCode::FAILURE;
                    }
                }
                return system_info(sys, json);
            }
            Err(e) => {
                eprintln!("rgdev: {e}");
                return ExitCode::FAILURE;
            }
            Ok(_) => {}
        }
    }
    let loaded = dev_args.preset.as_deref().map_or_else(preset::from_env, preset::load);
    let config = match loaded.and_then(|mut c| preset::apply_sets(&mut c, &dev_args.sets).map(|()| c)) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("rgdev: {e}");
            return ExitCode::FAILURE;
        }
    };
    let trace = dev_args.trace;
    let filter = dev_args.mmio_filter.as_deref().unwrap_or("");
    let trace_filter = match backend_user::TraceFilter::parse(filter, dev_args.mmio_fold) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("rgdev: --mmio-filter: {e}");
            return ExitCode::FAILURE;
        }
    };
    let opts = DeviceOptions {
        config,
        clock,
        trace: trace.as_ref().map(|_| 1 << 24),
        trace_filter,
        ..DeviceOptions::default()
    };
    let dev = match Device::open_with(opts) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("rgdev: no device: {e}");
            return ExitCode::FAILURE;
        }
    };
    dev.gpu().platform().set_progress(std::io::stderr().is_terminal());
    let r = match demo {
        None => demo_run(&dev),
        Some(json) => {
            info(&dev, json);
            Ok(true)
        }
    };
    let mut ok = true;
    if let Some(path) = trace {
        let out =
            std::fs::File::create(&path).and_then(|f| dev.sim().lock().trace_write(&mut std::io::BufWriter::new(f)));
        match out {
            Ok(n) => eprintln!("rgdev: MMIO trace ({n} lines) written to {}", path.display()),
            Err(e) => {
                eprintln!("rgdev: writing {}: {e}", path.display());
                ok = false;
            }
        }
    }
    match r {
        Ok(true) if ok => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("rgdev: {e}");
            ExitCode::FAILURE
        }
    }
}

/// What `rgdev info` reports: deviceQuery's facts (from the same runtime figures the
/// Driver API's attributes come from) and the device's identity, as (JSON key, label, value).
fn device_facts(dev: &Device) -> Vec<(&'static str, &'static str, serde_json::Value)> {
    use runtime_core::limits::{MAX_BLOCK, max_grid, texture_limits};
    use serde_json::json;
    let i = dev.info();
    let gpu = dev.gpu();
    let cfg = dev.sim().lock().config().clone();
    let (major, minor) = i.compute_capability;
    let tex = texture_limits(i.compute_capability);
    vec![
        ("name", "device", json!(format!("rgdev {} (simulated)", cfg.name))),
        ("compute_capability", "CUDA capability", json!(format!("{major}.{minor}"))),
        ("total_global_mem", "global memory (bytes)", json!(i.vram_size)),
        ("multiprocessors", "multiprocessors", json!(i.sms)),
        ("gpcs", "GPCs", json!(i.gpcs)),
        ("clock_khz", "GPU clock (kHz)", json!(i.clock_khz)),
        ("memory_clock_khz", "memory clock (kHz)", json!(i.mem_clock_khz)),
        ("memory_bus_width", "memory bus width (bits)", json!(i.mem_bus_bits)),
        ("l2_cache_bytes", "L2 cache (bytes)", json!(i.l2_bytes)),
        ("max_texture_1d", "max 1D texture", json!(tex.tex1d)),
        ("max_texture_2d", "max 2D texture", json!(tex.tex2d)),
        ("max_texture_3d", "max 3D texture", json!(tex.tex3d)),
        ("total_constant_mem", "constant memory (bytes)", json!(64 * 1024)),
        ("shared_mem_per_block", "shared memory per block (bytes)", json!(gpu.max_shared_per_block())),
        ("shared_mem_per_multiprocessor", "shared memory per SM (bytes)", json!(i.sm.shared)),
        ("regs_per_block", "registers per block", json!(gpu.max_regs_per_block())),
        ("regs_per_multiprocessor", "registers per SM", json!(i.sm.regs)),
        ("warp_size", "warp size", json!(hw::isa::WARP_SIZE)),
        ("max_threads_per_multiprocessor", "max threads per SM", json!(i.sm.threads)),
        ("max_blocks_per_multiprocessor", "max blocks per SM", json!(i.sm.blocks)),
        ("max_threads_per_block", "max threads per block", json!(MAX_BLOCK[0])),
        ("max_block_dim", "max block dimensions", json!(MAX_BLOCK)),
        ("max_grid_dim", "max grid dimensions", json!(max_grid(i.compute_capability))),
        ("texture_alignment", "texture alignment (bytes)", json!(runtime_core::context::texture::TEXTURE_ALIGNMENT)),
        ("async_engine_count", "copy engines", json!(1)),
        ("concurrent_kernels", "concurrent kernels", json!(i.concurrent_kernels)),
        ("kernel_exec_timeout", "watchdog (cycles, 0: none)", json!(i.watchdog_cycles)),
        ("unified_addressing", "unified addressing", json!(gpu.unified_addressing())),
        ("managed_memory", "managed memory", json!(gpu.unified_addressing())),
        ("fp32_per_fp64", "FP32 per FP64 instruction", json!(i.fp32_per_fp64)),
        ("pci", "PCI vendor:device", json!(format!("{:04x}:{:04x}", i.vendor, i.device))),
        ("pci_subsystem", "PCI subsystem", json!(format!("{:04x}:{:04x}", i.subsystem.0, i.subsystem.1))),
        ("pci_revision", "PCI revision", json!(i.revision)),
        ("boot0", "NV_PMC_BOOT_0", json!(format!("{:#010x}", i.boot0))),
        ("chipset", "register-level chipset", json!(format!("{:?}", i.chipset))),
        ("bar0", "BAR0", json!({"address": i.bar0.0, "bytes": i.bar0.1})),
        ("bar1", "BAR1", json!({"address": i.bar1.0, "bytes": i.bar1.1})),
        ("engines", "engines", json!(i.engines)),
        ("preset", "preset", json!(cfg.name)),
        ("mode", "model", json!(format!("{:?}", cfg.mode).to_lowercase())),
        ("dram_mbps", "DRAM bandwidth (MB/s)", json!(cfg.dram.mbps)),
    ]
}

/// `rgdev info` on a system: the topology as `nvidia-smi topo -m` prints it, then each
/// GPU's facts; JSON: `{"system", "topology", "gpus": [facts...]}`.
fn system_info(cfg: backend_user::SystemConfig, json: bool) -> ExitCode {
    let sys = match backend_user::System::open_with(cfg, &DeviceOptions::default()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("rgdev: no system: {e}");
            return ExitCode::FAILURE;
        }
    };
    let c = sys.config();
    let n = sys.len();
    if json {
        let topo: Vec<Vec<String>> = (0..n).map(|i| (0..n).map(|j| c.path(i, j).label()).collect()).collect();
        let gpus: Vec<serde_json::Value> = sys
            .devices()
            .iter()
            .map(|d| {
                let mut o: serde_json::Map<String, serde_json::Value> =
                    device_facts(d).into_iter().map(|(k, _, v)| (k.to_string(), v)).collect();
                o.insert("pci_bus_id".into(), d.pci_bus_id().into());
                serde_json::Value::Object(o)
            })
            .collect();
        let v = serde_json::json!({"system": c.name, "topology": topo, "gpus": gpus});
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        return ExitCode::SUCCESS;
    }
    println!("system {}: {n} GPUs\n", c.name);
    print!("{}", c.topology_matrix());
    println!(
        "\nLegend: NV# = # NVLinks, PIX = same PCIe switch, PHB = across switches under one CPU, SYS = across CPUs\n"
    );
    for (i, d) in sys.devices().iter().enumerate() {
        println!("GPU {i} ({}):", d.pci_bus_id());
        info(d, false);
        println!();
    }
    ExitCode::SUCCESS
}

/// `rgdev info`: deviceQuery's facts about the simulated GPU, as text or JSON.
fn info(dev: &Device, json: bool) {
    let facts = device_facts(dev);
    if json {
        let obj: serde_json::Map<String, serde_json::Value> =
            facts.into_iter().map(|(k, _, v)| (k.to_string(), v)).collect();
        println!("{}", serde_json::to_string_pretty(&obj).unwrap_or_default());
        return;
    }
    for (_, label, v) in facts {
        use serde_json::Value;
        let text = match &v {
            Value::String(s) => s.clone(),
            // Dimensions read as 1024 x 1024 x 64, lists as a, b, c.
            Value::Array(a) if a.iter().all(Value::is_number) => {
                a.iter().map(Value::to_string).collect::<Vec<_>>().join(" x ")
            }
            Value::Array(a) => a.iter().map(|x| x.as_str().unwrap_or_default()).collect::<Vec<_>>().join(", "),
            Value::Object(o) => {
                let (a, b) = (o["address"].as_u64().unwrap_or(0), o["bytes"].as_u64().unwrap_or(0));
                format!("{a:#x}, {} MiB", b >> 20)
            }
            other => other.to_string(),
        };
        println!("{label:34} {text}");
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

fn step<T>(dev: &Device, what: &str, bytes: u64, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let t0 = dev.time_ns();
    let r = f()?;
    let dt = dev.time_ns() - t0;
    let bw = if dt > 0 && bytes > 0 { format!("  {:8.2} GB/s", bytes as f64 / dt as f64) } else { String::new() };
    println!("  {what:<44} {:>10.3} us simulated{bw}", dt as f64 / 1000.0);
    Ok(r)
}

fn demo_run(dev: &Device) -> Result<bool> {
    let i = dev.info();
    println!(
        "rgdev demo on {:?} ({} MiB VRAM): copies and fences through the copy engine",
        i.chipset,
        i.vram_size >> 20
    );
    let ctx = dev.create_context()?;
    let n = 16 << 20;
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    let data = rng.bytes(n);
    let mut a = ctx.alloc::<u8>(n)?;
    let mut b = ctx.alloc::<u8>(n)?;
    println!("  allocated 2 x {} MiB at {:#x} and {:#x}", n >> 20, a.device_ptr(), b.device_ptr());
    step(dev, "host -> device 16 MiB", n as u64, || a.copy_from(&data))?;
    step(dev, "device -> device 16 MiB", n as u64, || b.copy_from_device(&a))?;
    let mut back = vec![0u8; n];
    step(dev, "device -> host 16 MiB", n as u64, || b.copy_to(&mut back))?;
    let copies_ok = back == data;
    println!("  round trip host -> A -> B -> host: {}", if copies_ok { "identical" } else { "MISMATCH" });

    let gpu = dev.gpu();
    let h = ctx.handle();
    step(dev, "memset D32 0xC0FFEE00 over 4 Mi words", n as u64, || {
        let f = gpu.memset(h, StreamHandle::DEFAULT, b.device_ptr(), MemsetValue::U32(0xC0FF_EE00), (n / 4) as u64)?;
        ctx.wait(f)
    })?;
    let mut words = vec![0u32; n / 4];
    let wb: &mut [u8] = bytemuck_cast(&mut words);
    b.copy_to(wb)?;
    let memset_ok = words.iter().all(|&w| w == 0xC0FF_EE00);
    println!("  memset readback: {}", if memset_ok { "all 0xc0ffee00" } else { "MISMATCH" });

    let rounds = 1000;
    let t0 = dev.time_ns();
    let mut last = 0;
    for _ in 0..rounds {
        let f = ctx.fence()?;
        ctx.wait(f)?;
        last = f.0;
    }
    let dt = dev.time_ns() - t0;
    println!(
        "  {rounds} fence round trips (last fence {last}): {:.3} us simulated each",
        dt as f64 / rounds as f64 / 1000.0
    );
    let kernels_ok = demo_kernels(dev, &ctx)?;
    let s = dev.sim().lock().stats();
    println!(
        "device: {} GPFIFO entries, {} methods, {} copies ({} MiB), {} semaphore releases, {} cycles",
        s.gp_entries,
        s.methods,
        s.copies,
        s.copy_bytes >> 20,
        s.semaphores,
        dev.sim().lock().cycles()
    );
    Ok(copies_ok && memset_ok && kernels_ok)
}

/// Run one checked kernel step (with its copies) and print the kernel's own figures.
fn kernel_step(dev: &Device, what: &str, f: impl FnOnce() -> Result<bool>) -> Result<bool> {
    dev.take_kernel_stats();
    let ok = f()?;
    let ks = dev.take_kernel_stats();
    let cfg = dev.sim().lock().config().clone();
    let cycles: u64 = ks.iter().map(|k| k.cycles()).sum();
    let w: u64 = ks.iter().map(|k| k.warp_instructions).sum();
    let dram: u64 = ks.iter().map(|k| k.dram_read_bytes + k.dram_write_bytes).sum();
    let ns = cfg.cycles_to_ns(cycles).max(1);
    println!(
        "  {what:<40} {:>9.3} us {:>9} warp instr  IPC {:>6.1}  DRAM {:>6.1} GB/s  {}",
        ns as f64 / 1000.0,
        w,
        w as f64 / cycles.max(1) as f64,
        dram as f64 / ns as f64,
        if ok { "correct" } else { "WRONG" }
    );
    Ok(ok)
}

fn demo_kernels(dev: &Device, ctx: &backend_user::Context) -> Result<bool> {
    let cfg = dev.sim().lock().config().clone();
    println!(
        "kernels (clang-compiled PTX, JIT-compiled to the rgdev ISA; {} preset, {:?} mode; kernel time only):",
        cfg.name, cfg.mode
    );
    let vecadd = ctx.load_ptx(include_str!("../../../../kernels/vecadd.ptx"))?;
    let matmul = ctx.load_ptx(include_str!("../../../../kernels/matmul.ptx"))?;
    let reduce = ctx.load_ptx(include_str!("../../../../kernels/reduce.ptx"))?;
    let mut ok = true;

    let n = 1 << 20;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let b: Vec<f32> = (0..n).map(|i| (n - i) as f32 * 0.25).collect();
    let (mut da, mut db, dc) = (ctx.alloc::<f32>(n)?, ctx.alloc::<f32>(n)?, ctx.alloc::<f32>(n)?);
    da.copy_from(&a)?;
    db.copy_from(&b)?;
    let f = vecadd.function("vecadd")?;
    ok &= kernel_step(dev, "vector add, 1 Mi elements", || {
        f.launch(
            [(n as u32).div_ceil(256), 1, 1],
            [256, 1, 1],
            0,
            &[da.arg(), db.arg(), dc.arg(), Arg::I32(n as i32)],
        )?;
        let c = dc.to_vec()?;
        Ok((0..n).all(|i| c[i] == a[i] + b[i]))
    })?;

    let m = 256usize;
    let x: Vec<f32> = (0..m * m).map(|i| ((i * 37) % 101) as f32 / 8.0 - 6.0).collect();
    let y: Vec<f32> = (0..m * m).map(|i| ((i * 53) % 97) as f32 / 16.0 - 3.0).collect();
    let (mut dx, mut dy, dz) = (ctx.alloc::<f32>(m * m)?, ctx.alloc::<f32>(m * m)?, ctx.alloc::<f32>(m * m)?);
    dx.copy_from(&x)?;
    dy.copy_from(&y)?;
    let f = matmul.function("matmul32")?;
    let regs = f.attributes().regs;
    if f.attributes().max_threads < 1024 {
        // As on a real Fermi: 1024 threads x this many registers exceed an SM's register file.
        println!("  matrix multiply: skipped, 1024-thread blocks of {regs} registers do not fit an SM of this preset");
    } else {
        ok &= kernel_step(dev, "matrix multiply 256x256, 32x32 tiles", || {
            let g = (m as u32).div_ceil(32);
            f.launch([g, g, 1], [32, 32, 1], 0, &[dx.arg(), dy.arg(), dz.arg(), Arg::I32(m as i32)])?;
            let z = dz.to_vec()?;
            Ok((0..m).all(|r| {
                (0..m).all(|c| {
                    let acc = (0..m).fold(0f32, |acc, k| x[r * m + k].mul_add(y[k * m + c], acc));
                    z[r * m + c].to_bits() == acc.to_bits()
                })
            }))
        })?;
    }

    let data: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761) >> 20).collect();
    let (mut din, mut dsum) = (ctx.alloc::<u32>(n)?, ctx.alloc::<u32>(1)?);
    din.copy_from(&data)?;
    dsum.copy_from(&[0])?;
    let f = reduce.function("reduce")?;
    ok &= kernel_step(dev, "reduction, 1 Mi elements (shared + atomics)", || {
        f.launch([(n as u32).div_ceil(256), 1, 1], [256, 1, 1], 0, &[din.arg(), dsum.arg(), Arg::U32(n as u32)])?;
        Ok(dsum.to_vec()?[0] == data.iter().fold(0u32, |s, &v| s.wrapping_add(v)))
    })?;
    Ok(ok)
}

fn bytemuck_cast(w: &mut [u32]) -> &mut [u8] {
    bytemuck::cast_slice_mut(w)
}
