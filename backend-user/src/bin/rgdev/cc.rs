//! `rgdev cc`: a CUDA compiler driver in the spirit of nvcc, built on clang. For each
//! `.cu` file it compiles the device code to PTX (`--cuda-device-only`, once per
//! architecture), wraps the PTX in a standard fat binary (`ptx::fatbin`), and compiles the
//! host code with that fat binary embedded (`-fcuda-include-gpubinary`): clang then emits
//! the registration calls and `<<<>>>` launches that libcudart.so.12 serves. `.c` and
//! `.cpp` files compile as host code; the result links against the libcudart.so.12 beside
//! this executable, with a run path to it. The headers are rgdev's own (embedded in this
//! binary: `backend-user/include`), so no CUDA toolkit is needed.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

mod compat;
mod dlink;
mod headers;
mod wheels;
use dlink::device_link;
use headers::HEADERS;

/// How to call it.
pub const USAGE: &str = "rgdev cc [-c] [-o OUT] [-arch=sm_XX] [-I DIR] [-D NAME[=V]] [-L DIR] [-l LIB] [-O N] [-g] \
                         [-rdc=true] [-dlink] [-use_fast_math] [-maxrregcount N] [-Xptxas A,B] [-Xcompiler A,B] \
                         [--ptx] [-v] [-keep] FILES...";

const HELP: &str = "\
Compile and link CUDA programs for rgdev, as nvcc does, with clang (the newest of clang-19 to
clang-14 installed, or RGDEV_CLANG).
.cu files are CUDA C++ (device code becomes PTX in a fat binary); .c and .cpp/.cc/.cxx files
are host code; .o, .a and .so files are linked. The program links libcudart.so.12 from
beside this executable and finds it there at run time.

Options:
  -c                          compile only: one object per input
  -o FILE                     the output (default: a.out, or NAME.o with -c, NAME.ptx with --ptx)
  -arch=sm_XX, -arch sm_XX    embed PTX for this architecture (repeatable; default sm_70);
                              also -gencode arch=compute_XX,code=..., --gpu-architecture
  -I DIR, -D NAME[=V], -U NAME  preprocessor options
  -L DIR, -l LIB              link options
  -O N, -g                    host optimization and debug information (device code is always -O3)
  -use_fast_math              -ftz=true -prec-div=false -prec-sqrt=false -fmad=true, and the
                              math library's single-precision functions are the fast intrinsics
                              (sinf is __sinf; __USE_FAST_MATH__ is defined), as nvcc's
  -ftz, -prec-div, -prec-sqrt, -fmad true|false
                              device floating point: flush denormals to zero, IEEE division,
                              IEEE square root, multiply-add contraction (defaults false, true,
                              true, true)
  -maxrregcount N             registers per thread for every kernel without __launch_bounds__
                              (the PTX's .maxnreg, which the JIT meets by spilling)
  -Xptxas A,B, --ptxas-options=A,B
                              check each PTX with `rgdev ptxas A B` (-v: its resource report,
                              --warn-on-spills, -maxrregcount N, -O N); -res-usage is -Xptxas -v
  -x cu                       compile the inputs as CUDA whatever their extension
  -dlink                      write the device link of -rdc objects as one object (a_dlink.o)
                              for a host linker; rgdev cc's own link does it by itself
  Accepted, changing nothing: -G, -lineinfo, --expt-relaxed-constexpr, --extended-lambda,
  -m64, -Wno-deprecated-gpu-targets, -lcudadevrt, -ccbin DIR (clang compiles the host code of
  a .cu file in the same front end as its device code), -t N.
  -std=c++NN                  the C++ dialect
  -Xcompiler A,B              pass options to the host compiler
  -Xlinker A,B                pass options to the linker
  -rdc=true, -dc              relocatable device code: device functions and variables shared
                              across .cu files, linked when the program loads (-dc: compile only)
  --ptx, -ptx                 write the device code's PTX (the newest -arch's) and stop
  --fatbin, -fatbin           write the device code's fat binary (PTX for every -arch) and stop;
                              clang's -fcuda-include-gpubinary embeds it
  --cuda-path DIR             compile against NVIDIA's headers, CCCL (Thrust, CUB, libcu++) and
                              libdevice in the CUDA installation DIR (include/, nvvm/libdevice/)
                              with clang's CUDA mode, instead of rgdev's headers; also CUDA_PATH.
                              DIR may be a site-packages with pip's nvidia-cuda-runtime-cu12,
                              nvidia-cuda-nvcc-cu12 (and nvidia-cuda-cccl-cu12) wheels, or `pip`:
                              those python3 finds. The program still runs on rgdev's libcudart.so.12
  -keep                       keep the intermediate files (printed with -v)
Programs are linked at a fixed address (-no-pie), so that __managed__ variables have the same
address on the host and the device; -Xcompiler -shared or -Xlinker -pie links otherwise.
  -v, --verbose               print each command
  --version                   the version
  -h, --help                  this help";

/// The parsed command line.
#[derive(Clone, Debug, Default, PartialEq)]
struct Args {
    inputs: Vec<String>,
    output: Option<String>,
    compile_only: bool,
    ptx_only: bool,
    fatbin_only: bool,
    archs: Vec<u32>,
    /// Preprocessor and compiler options for every compile.
    cflags: Vec<String>,
    /// Options for host compiles only (-O, -g, -Xcompiler).
    host_flags: Vec<String>,
    link_flags: Vec<String>,
    rdc: bool,
    /// `-dlink`: write the device link of the inputs (objects) as one object and stop.
    dlink: bool,
    /// Inputs named by `-x cu` are CUDA whatever their extension.
    force_cuda: bool,
    /// Floating-point modes of device code (`-use_fast_math` sets all four).
    ftz: bool,
    prec_div: bool,
    prec_sqrt: bool,
    fmad: bool,
    /// Defines `__USE_FAST_MATH__`: the math library's single-precision functions are the
    /// fast intrinsics (`sinf` is `__sinf`), as nvcc's `-use_fast_math`.
    fast_math: bool,
    /// `-maxrregcount`: the registers every kernel without `__launch_bounds__` may use.
    max_regs: Option<u32>,
    /// `-Xptxas` options, checked and run by `rgdev ptxas` on each PTX.
    ptxas: Vec<String>,
    verbose: bool,
    keep: bool,
    help: bool,
    version: bool,
    /// `--cuda-path DIR`: NVIDIA's headers and libdevice instead of rgdev's headers.
    cuda_path: Option<String>,
}

/// `sm_XY`/`compute_XY` (an optional `a`/`f` suffix) as 10 x major + minor.
fn arch(v: &str) -> Result<u32, String> {
    let digits = v.strip_prefix("sm_").or_else(|| v.strip_prefix("compute_")).map(|d| d.trim_end_matches(['a', 'f']));
    match digits.and_then(|d| d.parse::<u32>().ok()) {
        Some(n) if (20..=120).contains(&n) => Ok(n),
        _ => Err(format!("unknown architecture `{v}` (expected sm_XX or compute_XX, e.g. sm_70)")),
    }
}

/// `true`/`false` of an nvcc boolean option.
fn boolean(flag: &str, v: &str) -> Result<bool, String> {
    match v {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(format!("option `{flag}` takes true or false, not `{v}`")),
    }
}

/// Which of nvcc's boolean floating-point options `-NAME`/`--NAME` (with `=V` or a value
/// after it) `arg` is.
fn fp_option(arg: &str) -> Option<&'static str> {
    let bare = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-'))?;
    ["ftz", "prec-div", "prec-sqrt", "fmad"].into_iter().find(|n| bare == *n || bare.starts_with(&format!("{n}=")))
}

/// A register count (`-maxrregcount`).
fn reg_count(flag: &str, v: &str) -> Result<u32, String> {
    v.parse::<u32>().ok().filter(|&n| n > 0).ok_or_else(|| format!("`{flag}`: `{v}` is not a register count"))
}

/// nvcc options that change nothing under rgdev cc, with or without a value: clang accepts
/// what they enable by default (relaxed constexpr, extended lambdas), or they name what
/// rgdev has one of (64-bit host code, the shared device runtime).
const ACCEPTED: &[&str] = &[
    "--expt-relaxed-constexpr",
    "-expt-relaxed-constexpr",
    "--expt-extended-lambda",
    "-expt-extended-lambda",
    "--extended-lambda",
    "-extended-lambda",
    "-m64",
    "--machine=64",
    "-Wno-deprecated-gpu-targets",
    "--Wno-deprecated-gpu-targets",
    "-Wno-deprecated-declarations",
    "--Wno-deprecated-declarations",
    "-lineinfo",
    "--generate-line-info",
    "-G",
    "--device-debug",
    "-lcudadevrt",
];

/// nvcc options that take a value and change nothing under rgdev cc: `-ccbin` (clang is the
/// host compiler of a CUDA file: it compiles host and device code in one front end), `-t`
/// (parallel compilation).
const ACCEPTED_WITH_VALUE: &[&str] = &["-ccbin", "--compiler-bindir", "-t", "--threads"];

fn parse(args: &[String]) -> Result<Args, String> {
    let mut a = Args { prec_div: true, prec_sqrt: true, fmad: true, ..Args::default() };
    let mut it = args.iter();
    // The value of a flag given as `-f V`, `-fV` or `-f=V`.
    fn value<'a>(flag: &str, arg: &'a str, it: &mut std::slice::Iter<'a, String>) -> Result<String, String> {
        let rest = &arg[flag.len()..];
        let rest = rest.strip_prefix('=').unwrap_or(rest);
        if !rest.is_empty() {
            return Ok(rest.to_string());
        }
        it.next().cloned().ok_or_else(|| format!("option `{flag}` needs a value"))
    }
    while let Some(arg) = it.next() {
        let s = arg.as_str();
        match s {
            "-h" | "--help" => a.help = true,
            "--version" | "-V" => a.version = true,
            "-c" | "--compile" => a.compile_only = true,
            "--ptx" | "-ptx" => a.ptx_only = true,
            "--fatbin" | "-fatbin" => a.fatbin_only = true,
            "-v" | "--verbose" => a.verbose = true,
            "-keep" | "--keep" => a.keep = true,
            _ if s.starts_with("--cuda-path") => a.cuda_path = Some(value("--cuda-path", s, &mut it)?),
            "-g" | "--debug" => a.host_flags.push("-g".into()),
            _ if ACCEPTED.contains(&s) => {}
            _ if ACCEPTED_WITH_VALUE.iter().any(|f| s == *f || s.starts_with(&format!("{f}="))) => {
                if !s.contains('=') {
                    it.next().ok_or_else(|| format!("option `{s}` needs a value"))?;
                }
            }
            "-use_fast_math" | "--use_fast_math" => {
                (a.ftz, a.prec_div, a.prec_sqrt, a.fmad, a.fast_math) = (true, false, false, true, true);
            }
            _ if fp_option(s).is_some() => {
                let name = fp_option(s).expect("matched");
                let flag = &s[..s.find(name).expect("matched") + name.len()];
                let v = boolean(flag, &value(flag, s, &mut it)?)?;
                *match name {
                    "ftz" => &mut a.ftz,
                    "prec-div" => &mut a.prec_div,
                    "prec-sqrt" => &mut a.prec_sqrt,
                    _ => &mut a.fmad,
                } = v;
            }
            _ if s.starts_with("-maxrregcount") || s.starts_with("--maxrregcount") => {
                let flag = if s.starts_with("--") { "--maxrregcount" } else { "-maxrregcount" };
                a.max_regs = Some(reg_count(flag, &value(flag, s, &mut it)?)?);
            }
            _ if s.starts_with("-Xptxas") || s.starts_with("--ptxas-options") => {
                let flag = if s.starts_with("-Xptxas") { "-Xptxas" } else { "--ptxas-options" };
                let v = value(flag, s, &mut it)?;
                let mut opts = v.split([',', ' ']).filter(|o| !o.is_empty()).peekable();
                while let Some(o) = opts.next() {
                    // `-maxrregcount N` also limits what the JIT gives each kernel at load.
                    if let Some(n) = o.strip_prefix("-maxrregcount").or_else(|| o.strip_prefix("--maxrregcount")) {
                        let n = match n.strip_prefix('=') {
                            Some(n) => n.to_string(),
                            None if n.is_empty() => opts.next().ok_or("`-maxrregcount` needs a value")?.to_string(),
                            None => return Err(format!("-Xptxas: unknown option `{o}`")),
                        };
                        a.max_regs = Some(reg_count("-maxrregcount", &n)?);
                        continue;
                    }
                    a.ptxas.push(o.to_string());
                    // Options of ptxas that take a value as the next word.
                    if matches!(o, "-O" | "--opt-level") {
                        a.ptxas.push(opts.next().ok_or_else(|| format!("-Xptxas: `{o}` needs a value"))?.to_string());
                    }
                }
            }
            "-res-usage" | "--resource-usage" => a.ptxas.push("-v".into()),
            "-dlink" | "--device-link" => a.dlink = true,
            "-x" | "--x" => match it.next().map(String::as_str) {
                Some("cu") => a.force_cuda = true,
                Some("c" | "c++") => a.force_cuda = false,
                v => return Err(format!("-x {}: rgdev cc compiles cu, c and c++", v.unwrap_or(""))),
            },
            "-w" => a.cflags.push("-w".into()),
            "-rdc=true" | "-rdc" | "--relocatable-device-code=true" | "-dc" => {
                a.rdc = true;
                if s == "-dc" {
                    a.compile_only = true;
                }
            }
            "-rdc=false" | "--relocatable-device-code=false" => a.rdc = false,
            "-cudart" | "--cudart" => {
                let v = it.next().ok_or("option `-cudart` needs a value")?;
                if v != "shared" {
                    return Err(format!("-cudart {v}: rgdev's runtime is libcudart.so.12 (-cudart shared)"));
                }
            }
            _ if s.starts_with("-cudart=") || s.starts_with("--cudart=") => {
                if !s.ends_with("=shared") {
                    return Err(format!("{s}: rgdev's runtime is libcudart.so.12 (-cudart shared)"));
                }
            }
            _ if s.starts_with("-o") && s != "-o" && !s.starts_with("-o=") => a.output = Some(s[2..].to_string()),
            _ if s == "-o" || s.starts_with("-o=") || s.starts_with("--output-file") => {
                let flag = if s.starts_with("--output-file") { "--output-file" } else { "-o" };
                a.output = Some(value(flag, s, &mut it)?);
            }
            _ if s.starts_with("--gpu-architecture") || s.starts_with("-arch") => {
                let flag = if s.starts_with("--gpu-architecture") { "--gpu-architecture" } else { "-arch" };
                a.archs.push(arch(&value(flag, s, &mut it)?)?);
            }
            _ if s.starts_with("-gencode") || s.starts_with("--generate-code") => {
                let flag = if s.starts_with("-gencode") { "-gencode" } else { "--generate-code" };
                let v = value(flag, s, &mut it)?;
                let spec = v.split(',').find_map(|kv| kv.strip_prefix("arch="));
                let spec = spec.ok_or_else(|| format!("{flag} {v}: no arch=compute_XX"))?;
                a.archs.push(arch(spec.trim_matches(['[', ']', '"']))?);
            }
            _ if s.starts_with("-I") || s.starts_with("-D") || s.starts_with("-U") => {
                let flag = &s[..2];
                let v = value(flag, s, &mut it)?;
                a.cflags.push(format!("{flag}{v}"));
            }
            _ if s.starts_with("-std=") || s.starts_with("--std=") => {
                a.cflags.push(format!("-std={}", &s[s.find('=').expect("-std=") + 1..]))
            }
            _ if s.starts_with("-O") => a.host_flags.push(s.to_string()),
            _ if s.starts_with("-L") || s.starts_with("-l") => {
                let flag = &s[..2];
                let v = value(flag, s, &mut it)?;
                // The device runtime's library (`-lcudadevrt`): rgdev's runtime has no
                // separate one to link.
                if flag == "-l" && v == "cudadevrt" {
                    continue;
                }
                a.link_flags.push(format!("{flag}{v}"));
            }
            _ if s.starts_with("-Xcompiler") || s.starts_with("--compiler-options") => {
                let flag = if s.starts_with("-Xcompiler") { "-Xcompiler" } else { "--compiler-options" };
                let v = value(flag, s, &mut it)?;
                a.host_flags.extend(v.split(',').filter(|o| !o.is_empty()).map(str::to_string));
            }
            _ if s.starts_with("-Xlinker") || s.starts_with("--linker-options") => {
                let flag = if s.starts_with("-Xlinker") { "-Xlinker" } else { "--linker-options" };
                let v = value(flag, s, &mut it)?;
                a.link_flags.extend(v.split(',').filter(|o| !o.is_empty()).map(|o| format!("-Wl,{o}")));
            }
            _ if s.starts_with('-') => return Err(format!("unknown option `{s}` (rgdev cc --help lists them)")),
            _ => a.inputs.push(s.to_string()),
        }
    }
    if a.archs.is_empty() {
        a.archs.push(70);
    }
    a.archs.sort_unstable();
    a.archs.dedup();
    Ok(a)
}

/// What an input file is, by its name.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Cuda,
    C,
    Cxx,
    Link,
}

fn kind(path: &str, force_cuda: bool) -> Result<Kind, String> {
    if force_cuda && !matches!(kind(path, false), Ok(Kind::Link)) {
        return Ok(Kind::Cuda);
    }
    let ext = Path::new(path).extension().and_then(|e| e.to_str()).unwrap_or("");
    match ext {
        "cu" => Ok(Kind::Cuda),
        "c" => Ok(Kind::C),
        "cpp" | "cc" | "cxx" | "C" | "c++" => Ok(Kind::Cxx),
        "o" | "a" | "so" => Ok(Kind::Link),
        _ if path.contains(".so.") => Ok(Kind::Link),
        _ => Err(format!("{path}: unknown file type (.cu, .c, .cpp, .o, .a, .so)")),
    }
}

/// The clangs `rgdev cc` looks for, newest first: Debian 12 ships 14, 16 and 19; 19 is the
/// one the test command installs, and 14 is still tested (`RGDEV_CLANG=clang-14`).
const CLANGS: &[&str] = &["clang-19", "clang-18", "clang-17", "clang-16", "clang-15", "clang-14"];

/// The clang to run: RGDEV_CLANG, else the newest of [`CLANGS`] installed, else clang.
fn clang() -> String {
    if let Ok(c) = std::env::var("RGDEV_CLANG") {
        return c;
    }
    let found = |c: &str| Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success());
    CLANGS.iter().find(|c| found(c)).map_or_else(|| "clang".into(), |c| c.to_string())
}

/// The device compile's floating-point options: nvcc's `-ftz`, `-prec-div`, `-prec-sqrt`,
/// `-fmad` and `-use_fast_math` in clang's words.
fn fp_flags(a: &Args) -> Vec<&'static str> {
    let mut v = Vec::new();
    if a.ftz {
        v.push("-fgpu-flush-denormals-to-zero");
    }
    if !a.prec_div {
        v.extend(["-mllvm", "-nvptx-prec-divf32=0"]);
    }
    if !a.prec_sqrt {
        v.extend(["-mllvm", "-nvptx-prec-sqrtf32=0"]);
    }
    v.push(if a.fmad { "-ffp-contract=fast" } else { "-ffp-contract=off" });
    if a.fast_math {
        v.extend(["-fcuda-approx-transcendentals", "-D__USE_FAST_MATH__"]);
    }
    v
}

/// PTX `text` with `.maxnreg n` on every entry that has no `.maxnreg` and no `.maxntid`
/// (`__launch_bounds__` takes precedence over `-maxrregcount`, as with nvcc).
fn with_max_regs(text: &str, n: u32) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    let mut rest = text;
    while let Some(at) = rest.find(".entry ") {
        let Some(open) = rest[at..].find('{').map(|k| at + k) else { break };
        out.push_str(&rest[..open]);
        let head = &rest[at..open];
        if !head.contains(".maxnreg") && !head.contains(".maxntid") && !head.contains(".reqntid") {
            out.push_str(&format!(".maxnreg {n}\n"));
        }
        rest = &rest[open..];
        out.push('{');
        rest = &rest[1..];
    }
    out.push_str(rest);
    out
}

/// `-cuid=ID` for the compiles of `src`: with relocatable device code clang renames a
/// `static` kernel or variable after the compilation unit's id (`name__intern__<hash>`,
/// `name__static__<hash>`), and the host's registration must name what the device's PTX
/// defines, so both compiles get the same id (clang's driver does this when it compiles
/// both sides in one run). The id is the source's absolute path, hashed (FNV-1a).
fn cuid(src: &str) -> String {
    let path = std::fs::canonicalize(src).unwrap_or_else(|_| PathBuf::from(src));
    let h = path
        .to_string_lossy()
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
    format!("-cuid={h:016x}")
}

/// The PTX ISA version (as 10 x major + minor) rgdev cc asks clang for on `sm_<arch>`.
fn ptx_isa(arch: u32) -> u32 {
    match arch {
        0..=75 => 64,
        76..=80 => 70,
        81..=86 => 71,
        87 => 74,
        _ => 78,
    }
}

/// One compile or link step's runner: prints with -v, names the failing step.
struct Driver {
    clang: String,
    verbose: bool,
    tmp: PathBuf,
    include: PathBuf,
    /// A CUDA installation whose headers and libdevice replace rgdev's headers.
    cuda: Option<PathBuf>,
}

impl Driver {
    fn run(&self, args: &[OsString]) -> Result<(), String> {
        if self.verbose {
            let line: Vec<String> = args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
            eprintln!("#$ {} {}", self.clang, line.join(" "));
        }
        let st = Command::new(&self.clang).args(args).status().map_err(|e| {
            format!("cannot run {}: {e} (install clang-19: apt-get install clang-19, or set RGDEV_CLANG)", self.clang)
        })?;
        if st.success() { Ok(()) } else { Err(String::new()) } // clang printed why
    }

    /// Options every compile shares: rgdev's headers first (or the CUDA installation's),
    /// the program's flags.
    fn common(&self, a: &Args) -> Vec<OsString> {
        let mut v: Vec<OsString> = match &self.cuda {
            // clang 19 knows CUDA up to 12.5 and warns of newer installations; their headers
            // work (tests/tests/nvidia_headers.rs builds Thrust, CUB, CG and WMMA with 12.9).
            Some(dir) => vec![format!("--cuda-path={}", dir.display()).into(), "-Wno-unknown-cuda-version".into()],
            None => vec!["-I".into(), self.include.clone().into()],
        };
        v.extend(a.cflags.iter().map(OsString::from));
        v
    }

    /// Without a CUDA installation: no CUDA headers or libdevice of clang's, rgdev's
    /// `cuda_runtime.h` included first, as nvcc includes NVIDIA's.
    fn headers_off(&self) -> Vec<OsString> {
        if self.cuda.is_some() { vec![] } else { ["-nocudainc", "-nocudalib"].map(OsString::from).to_vec() }
    }
    fn prelude(&self) -> Vec<OsString> {
        if self.cuda.is_some() { vec![] } else { ["-include", "cuda_runtime.h"].map(OsString::from).to_vec() }
    }

    /// The device code of `src` as PTX for `arch`.
    fn device(&self, a: &Args, src: &str, arch: u32, out: &Path) -> Result<(), String> {
        let mut v: Vec<OsString> =
            ["-x", "cuda", "--cuda-device-only", "-O3", "-S"].iter().map(OsString::from).collect();
        v.extend(self.headers_off());
        v.push(format!("--cuda-gpu-arch=sm_{arch}").into());
        // The device runtime's malloc and free are calls, as NVVM keeps them: LLVM's view of
        // them as the C library's would drop a malloc whose block is unused and assume it
        // never returns NULL (a loop allocating until the heap is full becomes a trap).
        v.extend(["-fno-builtin-malloc", "-fno-builtin-free"].map(OsString::from));
        // The PTX ISA clang writes without a CUDA installation: 6.4 (sm_70's features), or
        // the first that has the architecture (sm_80: 7.0, sm_86: 7.1, sm_89 and sm_90: 7.8).
        // (With a CUDA installation clang picks the PTX ISA of its version.)
        if self.cuda.is_none() {
            v.extend(["-Xclang", "-target-feature", "-Xclang"].map(OsString::from));
            v.push(format!("+ptx{}", ptx_isa(arch)).into());
        }
        if a.rdc {
            v.push("-fgpu-rdc".into());
            v.push(cuid(src).into());
        }
        v.extend(fp_flags(a).into_iter().map(OsString::from));
        v.extend(self.common(a));
        v.extend(self.prelude());
        v.extend(["-o".into(), out.into(), src.into()]);
        self.run(&v)?;
        if let Some(n) = a.max_regs {
            let text = std::fs::read_to_string(out).map_err(|e| format!("{}: {e}", out.display()))?;
            std::fs::write(out, with_max_regs(&text, n)).map_err(|e| format!("{}: {e}", out.display()))?;
        }
        if !a.ptxas.is_empty() {
            self.ptxas(a, arch, out)?;
        }
        Ok(())
    }

    /// `rgdev ptxas -arch=sm_XX OPTIONS FILE` on the PTX of one compile (`-Xptxas`): its
    /// report and warnings, or its error for an option it does not know.
    fn ptxas(&self, a: &Args, arch: u32, ptx: &Path) -> Result<(), String> {
        let me = std::env::current_exe().map_err(|e| format!("rgdev ptxas: {e}"))?;
        let mut c = Command::new(me);
        c.arg("ptxas").arg(format!("-arch=sm_{arch}")).args(&a.ptxas).arg(ptx);
        if self.verbose {
            eprintln!("#$ rgdev ptxas -arch=sm_{arch} {} {}", a.ptxas.join(" "), ptx.display());
        }
        let st = c.status().map_err(|e| format!("rgdev ptxas: {e}"))?;
        if st.success() { Ok(()) } else { Err(String::new()) }
    }

    /// The host code of `src` with fat binary `fatbin` embedded.
    fn host(&self, a: &Args, src: &str, fatbin: &Path, out: &Path) -> Result<(), String> {
        let mut v: Vec<OsString> = ["-x", "cuda", "--cuda-host-only", "-c"].iter().map(OsString::from).collect();
        v.extend(self.headers_off());
        // CUDA 11.5's ABI: `<<<>>>` is __cudaPushCallConfiguration + cudaLaunchKernel, and
        // registration ends with __cudaRegisterFatBinaryEnd (clang assumes CUDA 7 without it;
        // with a CUDA installation it takes the installation's).
        if self.cuda.is_none() {
            v.extend(["-Xclang", "-target-sdk-version=11.5"].map(OsString::from));
        }
        v.extend(["-Xclang", "-fcuda-include-gpubinary", "-Xclang"].map(OsString::from));
        v.push(fatbin.into());
        if a.rdc {
            v.push("-fgpu-rdc".into());
            // clang's driver forwards -cuid to the device compile only.
            v.extend(["-Xclang".into(), OsString::from(cuid(src))]);
        }
        if a.fast_math {
            v.push("-D__USE_FAST_MATH__".into()); // both passes see it, as with nvcc
        }
        v.extend(self.common(a));
        v.extend(a.host_flags.iter().map(OsString::from));
        v.extend(self.prelude());
        v.extend(["-o".into(), out.into(), src.into()]);
        self.run(&v)
    }

    /// A C or C++ host file.
    fn plain(&self, a: &Args, src: &str, cxx: bool, out: &Path) -> Result<(), String> {
        let mut v: Vec<OsString> = vec!["-x".into(), if cxx { "c++" } else { "c" }.into(), "-c".into()];
        if let Some(dir) = &self.cuda {
            v.extend(["-I".into(), OsString::from(dir.join("include"))]);
        }
        let cuda_only = |f: &str| f.starts_with("--cuda-path") || f == "-Wno-unknown-cuda-version";
        v.extend(self.common(a).into_iter().filter(|f| {
            let f = f.to_string_lossy();
            (cxx || !f.starts_with("-std=c++")) && !cuda_only(&f)
        }));
        v.extend(a.host_flags.iter().map(OsString::from));
        v.extend(["-o".into(), out.into(), src.into()]);
        self.run(&v)
    }

    /// The fat binary of one `.cu` file's device code: PTX for every architecture.
    fn fatbin(&self, a: &Args, src: &str, n: usize, out: &Path) -> Result<(), String> {
        let mut entries = Vec::new();
        for &arch in &a.archs {
            let ptx = self.tmp.join(format!("{n}.sm_{arch}.ptx"));
            self.device(a, src, arch, &ptx)?;
            let text = std::fs::read(&ptx).map_err(|e| format!("{}: {e}", ptx.display()))?;
            entries.push((arch, text));
        }
        let table: Vec<(u16, u32, &[u8])> = entries.iter().map(|(arch, t)| (ptx::fatbin::PTX, *arch, &t[..])).collect();
        std::fs::write(out, ptx::fatbin::build(&table)).map_err(|e| format!("{}: {e}", out.display()))
    }

    /// Compile one `.cu` file to an object.
    fn cuda(&self, a: &Args, src: &str, n: usize, out: &Path) -> Result<(), String> {
        let fatbin = self.tmp.join(format!("{n}.fatbin"));
        self.fatbin(a, src, n, &fatbin)?;
        self.host(a, src, &fatbin, out)
    }
}

/// The directory holding libcudart.so.12: this executable's (cargo puts both there).
fn lib_dir() -> Result<PathBuf, String> {
    let dir = std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf));
    dir.filter(|d| d.join("libcudart.so").exists())
        .ok_or_else(|| "libcudart.so is not beside this executable (build with `cargo build --release`)".into())
}

fn stem(path: &str) -> String {
    Path::new(path).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into())
}

/// The `.cu` file clang compiles for `src` (input number `n`) and the arguments it compiles
/// with: `src` itself, or a mended copy in the work directory (see `compat`) that names
/// `src` in its `#line` and finds `src`'s own quoted includes beside it.
fn mended(a: &Args, d: &Driver, src: &str, n: usize) -> Result<(String, Args), String> {
    let text = std::fs::read_to_string(src).map_err(|e| format!("{src}: {e}"))?;
    let Some(fixed) = compat::alignas_first(&text) else { return Ok((src.to_string(), a.clone())) };
    let path = Path::new(src);
    let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let copy = d.tmp.join(format!("{n}.{}.cu", stem(src)));
    let line = format!("#line 1 \"{}\"\n", abs.display().to_string().replace('\\', "\\\\").replace('"', "\\\""));
    std::fs::write(&copy, line + &fixed).map_err(|e| format!("{}: {e}", copy.display()))?;
    let mut a = a.clone();
    let dir = abs.parent().map(Path::to_path_buf).unwrap_or_default();
    a.cflags.insert(0, format!("-iquote{}", dir.display()));
    Ok((copy.to_string_lossy().into_owned(), a))
}

fn compile(a: &Args, d: &Driver) -> Result<(), String> {
    if a.inputs.is_empty() {
        return Err("no input files".into());
    }
    let kinds: Vec<Kind> = a.inputs.iter().map(|i| kind(i, a.force_cuda)).collect::<Result<_, _>>()?;
    let single = a.inputs.len() == 1;
    if (a.compile_only || a.ptx_only || a.fatbin_only) && !single && a.output.is_some() {
        return Err("-o with -c, --ptx or --fatbin takes one input file".into());
    }
    if a.ptx_only || a.fatbin_only {
        let what = if a.ptx_only { "ptx" } else { "fatbin" };
        for (n, (src, k)) in a.inputs.iter().zip(&kinds).enumerate() {
            if *k != Kind::Cuda {
                return Err(format!("{src}: --{what} takes .cu files"));
            }
            let out = PathBuf::from(a.output.clone().unwrap_or_else(|| format!("{}.{what}", stem(src))));
            let (file, a) = mended(a, d, src, n)?;
            if a.ptx_only {
                d.device(&a, &file, *a.archs.last().expect("an architecture"), &out)?;
            } else {
                d.fatbin(&a, &file, n, &out)?;
            }
        }
        return Ok(());
    }
    let mut objects: Vec<OsString> = Vec::new();
    for (n, (src, k)) in a.inputs.iter().zip(&kinds).enumerate() {
        let obj = match (a.compile_only, &a.output) {
            (true, Some(o)) => PathBuf::from(o),
            (true, None) => PathBuf::from(format!("{}.o", stem(src))),
            (false, _) => d.tmp.join(format!("{n}.{}.o", stem(src))),
        };
        match k {
            Kind::Cuda => {
                let (file, a) = mended(a, d, src, n)?;
                d.cuda(&a, &file, n, &obj)?
            }
            Kind::C => d.plain(a, src, false, &obj)?,
            Kind::Cxx => d.plain(a, src, true, &obj)?,
            Kind::Link => {
                objects.push(src.into());
                continue;
            }
        }
        objects.push(obj.into());
    }
    if a.compile_only {
        return Ok(());
    }
    if a.dlink {
        // nvcc -dlink: the device link as an object of its own, for a host linker.
        let out = a.output.clone().unwrap_or_else(|| "a_dlink.o".into());
        match device_link(d, &objects)? {
            Some(stub) => std::fs::copy(&stub, &out).map(|_| ()).map_err(|e| format!("{out}: {e}"))?,
            None => {
                return Err(
                    "-dlink: no input object has relocatable device code (compile with -rdc=true or -dc)".into()
                );
            }
        }
        return Ok(());
    }
    if let Some(stub) = device_link(d, &objects)? {
        objects.push(stub.into());
    }
    let lib = lib_dir()?;
    let mut v: Vec<OsString> = vec!["--driver-mode=g++".into()];
    v.extend(objects);
    v.extend(["-o".into(), a.output.clone().unwrap_or_else(|| "a.out".into()).into()]);
    v.extend(a.host_flags.iter().filter(|f| !f.starts_with("-O")).map(OsString::from));
    v.extend(a.link_flags.iter().map(OsString::from));
    // A program links at a fixed address (not position-independent) so that its
    // `__managed__` variables, which live in its data, lie low enough to have their host
    // address on the device too (host_defines.h); a library or an explicit -pie opts out.
    let flags = || a.host_flags.iter().chain(&a.link_flags);
    if !flags().any(|f| matches!(f.as_str(), "-shared" | "-pie" | "-Wl,-pie" | "-Wl,-shared")) {
        v.push("-no-pie".into());
    }
    let mut l = OsString::from("-L");
    l.push(&lib);
    v.push(l);
    // DT_RPATH (not RUNPATH) also applies to libcudart's dlopen of libcuda.so.1.
    let mut rpath = OsString::from("-Wl,--disable-new-dtags,-rpath,");
    rpath.push(&lib);
    v.push(rpath);
    // NVTX (libnvToolsExt.so.1) only when the program calls it: NVTX 3 is header-only
    // with NVIDIA's toolkit, so programs do not name the library.
    v.extend(
        ["-Wl,--push-state,--as-needed", "-lnvToolsExt", "-Wl,--pop-state", "-lcudart", "-lm"].map(OsString::from),
    );
    d.run(&v)
}

/// `rgdev cc ARGS`.
pub fn main(args: &[String]) -> ExitCode {
    let a = match parse(args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("rgdev cc: {e}\nusage: {USAGE}");
            return ExitCode::from(2);
        }
    };
    if a.help {
        println!("usage: {USAGE}\n\n{HELP}");
        return ExitCode::SUCCESS;
    }
    if a.version {
        println!("rgdev cc {} (CUDA 12.9 runtime API; clang: {})", env!("CARGO_PKG_VERSION"), clang());
        return ExitCode::SUCCESS;
    }
    static COUNT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = std::env::temp_dir().join(format!("rgdev-cc-{}-{n}", std::process::id()));
    let include = tmp.join("include");
    let made = HEADERS.iter().try_for_each(|(name, text)| {
        let path = include.join(name);
        std::fs::create_dir_all(path.parent().expect("a header's directory"))?;
        std::fs::write(path, text)
    });
    if let Err(e) = made {
        eprintln!("rgdev cc: {}: {e}", tmp.display());
        return ExitCode::FAILURE;
    }
    let cuda = a.cuda_path.clone().or_else(|| std::env::var("CUDA_PATH").ok().filter(|p| !p.is_empty()));
    // An installation, the pip wheels' `site-packages` (or its `nvidia/`), or `pip`: the
    // wheels where python3 finds them.
    let wheels = |nvidia: Result<PathBuf, String>| nvidia.and_then(|n| wheels::lay_out(&n, &tmp.join("cuda")));
    let cuda = match cuda.map(PathBuf::from) {
        Some(dir) if dir.as_os_str() == "pip" => Some(wheels(wheels::find())),
        Some(dir) if !dir.join("include/cuda.h").is_file() => match wheels::packages(&dir) {
            Some(n) => Some(wheels(Ok(n))),
            None => Some(Err(format!(
                "--cuda-path {}: not a CUDA installation (no include/cuda.h) nor pip's nvidia-cuda-runtime-cu12",
                dir.display()
            ))),
        },
        c => c.map(Ok),
    };
    let cuda = match cuda.transpose() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("rgdev cc: {e}");
            let _ = std::fs::remove_dir_all(&tmp);
            return ExitCode::FAILURE;
        }
    };
    let d = Driver { clang: clang(), verbose: a.verbose, tmp: tmp.clone(), include, cuda };
    let r = compile(&a, &d);
    if a.keep {
        eprintln!("rgdev cc: intermediate files kept in {}", tmp.display());
    } else {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("rgdev cc: {e}");
            }
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests;
