//! The Runtime API end to end: the CUDA C++ programs of `tests/cuda`, compiled by
//! `rgdev cc` (clang-14 underneath, rgdev's headers, libcudart.so.12) and run on the
//! simulated GPU, each checking itself against a CPU reference and printing "all checks
//! passed". The README's test command installs clang-14 and builds `target/release` first.

mod common;
use common::*;
use std::process::Command;

/// Host functions and threads (hostfn.cu): a host function making system calls while
/// another thread synchronizes the context 200 times (each waits for it: none gives up with
/// "device idle"), or launches on the legacy stream behind it (the kernel runs); CUDA calls
/// inside a host function answer cudaErrorNotPermitted, change nothing (the stream it tried
/// to destroy runs on) and leave the waiting thread's last error alone; and the simulated
/// time around a host function is the same whether it sleeps 0 or 120 ms.
#[test]
fn host_functions_with_other_threads_waiting() {
    let exe = compile("hostfn", &[]);
    let simulated = |ms: &str| {
        let out = run_ok(&exe, &[("HOSTFN_SLEEP_MS", ms)]);
        out.lines().find(|l| l.starts_with("simulated:")).expect("simulated time").to_string()
    };
    assert_eq!(simulated("0"), simulated("120"));
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// Stream callbacks with no thread waiting (the shape of cuda-samples' simpleCallback):
/// work and a callback queued on four streams, then the main thread blocks on a host
/// condition without a CUDA call. The clock's owner runs the device and the callbacks, in
/// stream order, each after its stream's copies; the threads they start call cudaFree and
/// cudaFreeHost; every run gives the same simulated times.
#[test]
fn callbacks_run_when_no_thread_waits() {
    let exe = compile("callback", &[]);
    let runs: Vec<String> = (0..2).map(|_| run_ok(&exe, &[])).collect();
    assert!(runs[0].contains("callbacks in order: 0 1 2 3"), "{}", runs[0]);
    let simulated = |o: &str| o.lines().find(|l| l.starts_with("simulated:")).expect("simulated times").to_string();
    assert_eq!(simulated(&runs[0]), simulated(&runs[1]));
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// Vector add with `<<<>>>`, a grid-stride loop, the launch's status.
#[test]
fn vecadd() {
    program("vecadd", &[]);
}

/// Templates, functors, device lambdas, classes and `__host__ __device__` functions.
#[test]
fn templates_and_cxx() {
    program("templates", &["-std=c++17"]);
}

/// Barriers that order shared memory (the pattern clang-14 broke: thread 0 writes a
/// `__shared__` value between two `__syncthreads()`, every thread reads it), the
/// block-wide votes, and cooperative groups: blocks, static and dynamic tiles, coalesced
/// groups and their partitions, reduce and scans, memcpy_async, and a grid-wide sync in a
/// cooperative launch; built by the default clang and by clang-14 when it is installed.
/// Functional mode too (a grid barrier's stalled blocks stay resident while the rest start;
/// before, the first block spun until the watchdog).
#[test]
fn barriers_and_cooperative_groups() {
    let exe = compile("cg", &[]);
    let out = run_ok(&exe, &[]);
    assert!(out.contains("cooperative launch: "), "{out}");
    let toml = exe.parent().unwrap().join("functional.toml");
    std::fs::write(&toml, "base = \"gv100\"\nmode = \"functional\"\n").unwrap();
    assert_eq!(run_ok(&exe, &[("RGDEV_PRESET", toml.to_str().unwrap())]), out, "the same results in both modes");
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
    if Command::new("clang-14").arg("--version").output().is_ok_and(|o| o.status.success()) {
        let dir = scratch("cg14");
        let exe = dir.join("cg");
        let out = rgdev()
            .env("RGDEV_CLANG", "clang-14")
            .arg("cc")
            .arg(root().join("tests/cuda/cg.cu"))
            .arg("-I")
            .arg(root().join("tests/cuda"))
            .arg("-o")
            .arg(&exe)
            .output()
            .expect("rgdev cc runs");
        assert!(out.status.success(), "{:?}", text(&out));
        run_ok(&exe, &[]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The CUDA C++ surface programs include (profiler, builtin types, math constants,
/// `struct cudaArray`, host and device `min`/`max`, cache-operator loads and stores, scoped
/// atomics, C++ overloads, `<memory>`), built plainly and with nvcc's `-use_fast_math`.
#[test]
fn cuda_cxx_headers() {
    program("headers", &[]);
    let exe = compile_in("headers-fast", "headers", &["-use_fast_math", "-std=c++17"]);
    let out = run_ok(&exe, &[]);
    assert!(out.contains("fast math: sinf(0.5) = "), "{out}");
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// Directed rounding (`__fadd_rd`, `__ddiv_ru`, `__int2float_rz`, ...): every operation
/// and conversion in every mode, bit for bit against the host under `fesetround`.
#[test]
fn directed_rounding_matches_the_host() {
    let exe = compile("rounding", &["-Xcompiler", "-frounding-math"]);
    let out = run_ok(&exe, &[]);
    assert!(out.contains("directed results differ from nearest"), "{out}");
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// Tiled matrix multiply with `__shared__` tiles.
#[test]
fn tiled_matmul() {
    program("matmul", &["-O2"]);
}

/// `__constant__` and `__device__` variables through the symbol API.
#[test]
fn constant_memory_and_symbols() {
    program("constant", &[]);
}

/// `extern __shared__` arrays sized at launch.
#[test]
fn dynamic_shared_memory() {
    program("dynshared", &[]);
}

/// Streams, events, host functions and callbacks in stream order.
#[test]
fn streams_events_and_callbacks() {
    program("streams", &[]);
}

/// Configuration errors (cleared by cudaGetLastError) and a sticky illegal address.
#[test]
fn error_model() {
    program("errors", &[]);
}

/// Pitched and 3D memory, registered host memory, pointer attributes, occupancy, function
/// attributes, cooperative launches, priorities, deprecated names, an unsupported call.
#[test]
fn the_rest_of_the_api() {
    program("apisurface", &["-lcuda"]);
}

/// CUDA arrays, texture objects (point and bilinear, linear memory, normalized reads,
/// paged managed memory), surface objects written by a kernel, copies to and from arrays.
#[test]
fn arrays_textures_and_surfaces() {
    // Texels of paged managed memory fault in as loads do: a texture of 16 pages of
    // managed memory, its result in 16 more.
    let exe = compile("texture", &[]);
    let (_, s) = run_stats(&exe, &[]);
    let tex = kernel(&s, "_Z11via_textureyPfi");
    assert!(tex["replayable_faults"].as_u64().unwrap() > 0, "{tex}");
    assert_eq!(tex["migrations_to_gpu"], 32, "{tex}");
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// Relocatable device code across two files, in one step (`-rdc=true`) and as nvcc's
/// separate compilation (`-dc`, then a link of the objects).
#[test]
fn relocatable_device_code() {
    let dir = scratch("rdc");
    let src = |n: &str| root().join(format!("tests/cuda/{n}.cu"));
    let inc = root().join("tests/cuda");
    let one = dir.join("one");
    let st = rgdev()
        .args(["cc", "-rdc=true", "-I"])
        .arg(&inc)
        .arg(src("rdc_main"))
        .arg(src("rdc_lib"))
        .arg("-o")
        .arg(&one)
        .status()
        .unwrap();
    assert!(st.success());
    run_ok(&one, &[]);
    let (a, b) = (dir.join("main.o"), dir.join("lib.o"));
    for (s, o) in [("rdc_main", &a), ("rdc_lib", &b)] {
        let st = rgdev().args(["cc", "-dc", "-I"]).arg(&inc).arg(src(s)).arg("-o").arg(o).status().unwrap();
        assert!(st.success());
    }
    let two = dir.join("two");
    let st = rgdev().arg("cc").arg(&a).arg(&b).arg("-o").arg(&two).status().unwrap();
    assert!(st.success());
    run_ok(&two, &[]);
    // nvcc's split: -dlink writes the device link, and the link takes it as an object.
    let dl = dir.join("dlink.o");
    let st = rgdev().args(["cc", "-dlink"]).arg(&a).arg(&b).arg("-o").arg(&dl).status().unwrap();
    assert!(st.success() && dl.exists());
    let three = dir.join("three");
    let st = rgdev().arg("cc").arg(&a).arg(&b).arg(&dl).arg("-o").arg(&three).status().unwrap();
    assert!(st.success());
    run_ok(&three, &[]);
    // Without the library's half the program does not link (its host code names the
    // library's `__device__` variable), as with nvcc.
    let st =
        rgdev().arg("cc").arg(&a).arg("-o").arg(dir.join("half")).stderr(std::process::Stdio::null()).status().unwrap();
    assert!(!st.success());
    let _ = std::fs::remove_dir_all(&dir);
}

/// cuda_fp16.h: binary16 conversions bit for bit on host and device, half arithmetic.
#[test]
fn half_precision() {
    program("fp16", &[]);
}

/// cuda_fp16.h and cuda_bf16.h bit for bit: 2048 operand triples of each format through
/// every operation (arithmetic with _sat/_relu, division, fma, min/max, comparisons, pairs,
/// conversions with every rounding), computed by the device's .f16/.bf16 instructions and
/// by the host's exact arithmetic, which must agree in every bit; atomicAdd and shuffles of
/// halves and pairs. Again with -use_fast_math (which must not change half arithmetic).
#[test]
fn half_and_bfloat16_bit_exact() {
    for extra in [&[][..], &["-use_fast_math"][..]] {
        let exe = compile("half_exact", extra);
        let out = run_ok(&exe, &[]);
        assert!(out.contains("half: 2048 cases x 96 results, 0 differ"), "{out}");
        assert!(out.contains("bfloat16: 2048 cases x 96 results, 0 differ"), "{out}");
        let _ = std::fs::remove_dir_all(exe.parent().unwrap());
    }
}

/// Device-side malloc, free, new and delete on the heap cudaLimitMallocHeapSize sizes:
/// the limit's default and a new value (frozen after the first kernel that allocates), a
/// heap filled until NULL, emptied and filled again, blocks that outlive their kernel,
/// C++ objects, and a double free that stops the grid.
#[test]
fn device_heap() {
    let exe = compile("device_malloc", &[]);
    let out = run_ok(&exe, &[]);
    assert!(out.contains("64 KiB blocks in a 1 MiB heap: 15, then 15"), "{out}");
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// sm_70/sm_80 integer intrinsics (__match_any/all_sync, __reduce_*_sync, __dp4a,
/// __dp2a_lo/hi, __nanosleep) and `__int128` arithmetic, which clang compiles to PTX carry
/// chains (`add.cc.s64`, `addc.cc.s64`, `sub.cc`, `subc`), against the host.
#[test]
fn integer_intrinsics_and_int128() {
    program("intrinsics_int", &["-std=c++17"]);
}

/// cuda_pipeline.h over PTX `cp.async`: tiles staged into shared memory two ahead with
/// copies of 16, 8 and 4 bytes, zfill at the array's end, commit and wait_prior.
#[test]
fn pipeline_primitives() {
    let exe = compile("pipeline", &["-std=c++17"]);
    assert!(run_ok(&exe, &[]).contains("6 tiles staged"));
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// Asynchronous barrier primitives over PTX mbarrier (tests/cuda/awbarrier.cu): split
/// arrive and wait in rounds, tokens' pending counts, threads leaving with
/// arrive_and_drop, and `__pipeline_arrive_on` completing a phase with staged copies; in
/// both modes.
#[test]
fn asynchronous_barriers() {
    both_modes("awbarrier", &[], "awbarrier: 6 rounds, a drop, staged copies");
}

/// C++ virtual functions and function pointers (tests/cuda/virtual.cu): objects of three
/// classes made on the device, virtual calls diverging across a warp, a virtual function
/// calling virtual functions, virtual destructors (one through `delete` on the device
/// heap), a compile-time table of pointers, a pointer the host reads from a symbol and
/// passes back; in both modes.
#[test]
fn virtual_functions_and_function_pointers() {
    both_modes("virtual", &[], "virtual: 96 objects of 3 classes, 4 kinds of pointer calls");
}

/// libcu++'s synchronization primitives (tests/cuda/libcuxx.cu, rgdev's <cuda/barrier>,
/// <cuda/pipeline>, <cuda/atomic>): barriers in shared memory with tokens, drops and a
/// completion function, block copies tied to a barrier, thread and block pipelines (split
/// roles too), scoped atomics on the device and the host, and half a warp waiting for the
/// other (independent thread scheduling); in both modes.
#[test]
fn libcuxx_barriers_pipelines_and_atomics() {
    both_modes("libcuxx", &[], "libcuxx: barriers, block copies, thread and block pipelines, atomics");
}

/// <cuda_occupancy.h> (tests/cuda/occupancy.cu): the header-only calculator agrees with the
/// runtime's occupancy API for four kernels x 16 block sizes x 10 shared memory sizes and in
/// its block-size suggestions, gives the same answer in device code, and gives the answers
/// worked out by hand for an A100, H100, Turing, Kepler and GP100 (carveouts, reserved shared
/// memory, block barriers, partitioned caching, bad input).
#[test]
fn occupancy_calculator_header() {
    let exe = compile("occupancy", &[]);
    let out = run_ok(&exe, &[]);
    assert!(out.contains("occupancy: 652 answers of <cuda_occupancy.h> agree with the runtime's"), "{out}");
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// nvcuda::wmma on the tensor core (tests/cuda/wmma.cu, built for sm_80 and run on a gv100
/// that reports compute capability 8.0): every shape and type of mma.h in all layouts and a
/// GEMM, bit for bit against the host, in both modes; the multiply's issue interval is the
/// preset's (ten times it makes eight warps multiplying in a loop slower).
#[test]
fn warp_matrix_functions_on_the_tensor_core() {
    let exe = compile("wmma", &["-arch=sm_80"]);
    let dir = exe.parent().unwrap();
    let preset = |name: &str, extra: &str| {
        let p = dir.join(name);
        std::fs::write(&p, format!("base = \"gv100\"\n{extra}[board]\ncc_major = 8\ncc_minor = 0\n")).unwrap();
        p.to_str().unwrap().to_string()
    };
    let (timing, functional) = (preset("sm80.toml", ""), preset("sm80f.toml", "mode = \"functional\"\n"));
    let slow = preset("slow.toml", "[pipe]\ntensor_interval = 320\n");
    assert!(run_ok(&exe, &[("RGDEV_PRESET", &functional)]).contains("a 64x64x64 f16 GEMM"));
    let (_, s) = run_stats(&exe, &[("RGDEV_PRESET", &timing)]);
    let (_, s10) = run_stats(&exe, &[("RGDEV_PRESET", &slow)]);
    let cycles = |s: &serde_json::Value| kernel(s, "_Z5chainPfi")["cycles"].as_u64().unwrap();
    assert!(cycles(&s10) > cycles(&s) * 3, "tensor interval x10: {} -> {} cycles", cycles(&s), cycles(&s10));
    // On compute capability 7.0 the sm_80 build is refused, as CUDA refuses it.
    let out = Command::new(&exe).output().unwrap();
    let (o, e) = text(&out);
    assert!(!out.status.success() && (o + &e).contains("cudaErrorNoKernelImageForDevice"), "{}", out.status);
    let _ = std::fs::remove_dir_all(dir);
}

/// PTX mma.sync through inline assembly (tests/cuda/mma_sync.cu, sm_80 on a gv100 that
/// reports 8.0): each shape and type rgdev has, fragments placed as the PTX ISA lays them
/// out, bit for bit against host GEMMs, and ldmatrix (x1, x2 .trans, x4) feeding it from
/// shared memory; in both modes. Device memcpy and memset too.
#[test]
fn mma_sync_fragments_of_the_ptx_isa() {
    let exe = compile("mma_sync", &["-arch=sm_80"]);
    let dir = exe.parent().unwrap();
    for (name, mode) in [("t.toml", ""), ("f.toml", "mode = \"functional\"\n")] {
        let p = dir.join(name);
        std::fs::write(&p, format!("base = \"gv100\"\n{mode}[board]\ncc_major = 8\ncc_minor = 0\n")).unwrap();
        assert!(
            run_ok(&exe, &[("RGDEV_PRESET", p.to_str().unwrap())])
                .contains("mma.sync: 13 operations, bit for bit, ldmatrix")
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// The statistics file is written as the run goes: a program killed (SIGKILL: no exit
/// handler runs) after a synchronization leaves the statistics of what finished.
#[test]
fn a_killed_program_keeps_the_statistics_of_what_finished() {
    use std::io::BufRead;
    let exe = compile_in("killed", "killed", &[]);
    let json = exe.parent().unwrap().join("stats.json");
    let mut child = Command::new(&exe)
        .env("RGDEV_STATS_JSON", &json)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the program runs");
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    assert_eq!(line, "synchronized\n");
    child.kill().unwrap();
    let _ = child.wait();
    let stats: serde_json::Value = read_json(&json);
    let kernels = stats["kernels"].as_array().expect("kernels");
    assert_eq!(kernels.len(), 1, "{stats}");
    assert_eq!(kernels[0]["name"], "_Z4fillPi");
    assert!(kernels[0]["cycles"].as_u64().unwrap() > 0);
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// Sweep points: `--set` overrides reach the program (its statistics hold the effective
/// configuration), and `rgdev stats merge --csv` makes one table of the runs with the
/// parameter that differs as a column.
#[test]
fn sweep_points_merge_into_one_table() {
    let exe = compile_in("vecadd-sweep", "vecadd", &[]);
    let dir = exe.parent().unwrap();
    let mut files = Vec::new();
    for sms in [4, 8] {
        let json = dir.join(format!("sms{sms}.json"));
        let out = rgdev()
            .args(["run", "--preset", "gv100", "--set", &format!("board.sms={sms}"), "--set", "mode=functional"])
            .arg("--stats-json")
            .arg(&json)
            .arg(&exe)
            .output()
            .expect("rgdev run runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let stats: serde_json::Value = read_json(&json);
        assert_eq!(stats["config"]["board"]["sms"], sms);
        assert_eq!(stats["config"]["mode"], "functional");
        files.push(json);
    }
    let out = rgdev().args(["stats", "merge", "--csv"]).args(&files).output().expect("rgdev stats runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines: Vec<&str> = text.lines().collect();
    assert!(out.status.success());
    assert!(lines[0].starts_with("file,program,board.sms,type,name,calls,"), "{text}");
    let kernels: Vec<&&str> = lines.iter().filter(|l| l.contains(",kernel,_Z6vecadd")).collect();
    assert_eq!(kernels.len(), 2, "{text}");
    assert!(kernels[0].contains(",vecadd,4,kernel,") && kernels[1].contains(",vecadd,8,kernel,"), "{text}");
    let bad = rgdev().args(["run", "--set", "board.smz=3", "/bin/true"]).output().unwrap();
    assert!(!bad.status.success() && String::from_utf8_lossy(&bad.stderr).contains("smz"));
    let _ = std::fs::remove_dir_all(dir);
}

/// Driver and Runtime API calls in one program, sharing the primary context.
#[test]
fn mixing_driver_and_runtime_api() {
    program("mixed", &["-lcuda"]);
}

/// The device math library (rgdev's own, in math_functions.h) against the host's long
/// double functions: every function in both precisions within CUDA's documented ulp
/// bounds; exact functions bit for bit.
#[test]
fn math_library_within_cudas_bounds() {
    let exe = compile("mathlib", &["-std=c++17"]);
    let out = run_ok(&exe, &[]);
    for f in ["exp ", "log ", "sin ", "pow ", "atan2 ", "fmod "] {
        assert!(out.lines().any(|l| l.starts_with(f)), "{f} not measured:\n{out}");
    }
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// The Bessel functions against mpmath's values (tests/cuda/bessel_ref.h): J0, J1, Y0, Y1,
/// I0, I1 in both precisions, J_n and Y_n, within CUDA's bounds, and the special values.
#[test]
fn bessel_functions_within_cudas_bounds() {
    let exe = compile("bessel", &[]);
    let out = run_ok(&exe, &[]);
    for f in ["j0 ", "y1 ", "i1 ", "jn "] {
        assert!(out.lines().any(|l| l.starts_with(f)), "{f} not measured:\n{out}");
    }
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// Device printf: exact text, printed at synchronization after the host's earlier output,
/// the FIFO limit and the records that did not fit.
#[test]
fn device_printf() {
    let exe = compile("printf", &[]);
    let out = Command::new(&exe).output().unwrap();
    let (o, e) = text(&out);
    assert!(out.status.success(), "{o}{e}");
    let mut want = String::from(
        "host: launched\n\
         [0] gpu:  0.00|ff  |0000|+0|a|0.000000e+00|100000|abc|%\n\
         [1] gpu:  1.25|100 |0010|-8589934592|b|1.000000e-03|200000|abc|%\n\
         [2] gpu:  2.50|101 |0020|-17179869184|c|2.000000e-03|300000|abc|%\n\
         [3] gpu:  3.75|102 |0030|-25769803776|d|3.000000e-03|400000|abc|%\n\
         no arguments\n\
         (null)|(nil)|-3|65535|18446744073709551615\n\
         host: synchronized\n",
    );
    for k in 0..51 {
        want += &format!("line {k}\n");
    }
    want += "line 100\nline 101\nall checks passed\n";
    assert_eq!(o, want);
    assert!(e.contains("rgdev: 13 device printf records did not fit the FIFO (cudaLimitPrintfFifoSize)"), "{e}");
    // The same text in functional mode.
    let toml = exe.parent().unwrap().join("functional.toml");
    std::fs::write(&toml, "base = \"gv100\"\nmode = \"functional\"\n").unwrap();
    let out = Command::new(&exe).env("RGDEV_PRESET", &toml).output().unwrap();
    assert_eq!(text(&out).0, want);
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// Device assert: CUDA's message for each failing thread on stderr, cudaErrorAssert
/// sticky until cudaDeviceReset.
#[test]
fn device_assert() {
    let exe = compile("assert", &[]);
    let out = Command::new(&exe).output().unwrap();
    let (o, e) = text(&out);
    assert!(out.status.success() && o.contains("all checks passed"), "{o}{e}");
    assert!(o.contains("cudaErrorAssert: device-side assert triggered"), "{o}");
    let src = root().join("tests/cuda/assert.cu");
    let lines: Vec<&str> = e.lines().filter(|l| l.contains("Assertion")).collect();
    assert_eq!(lines.len(), 27, "{e}");
    for (k, l) in lines.iter().enumerate() {
        let want = format!(
            "{}:9: void within(const int *, int, int): block: [1,0,0], thread: [{},0,0] Assertion `v[i] < limit` failed.",
            src.display(),
            k + 5
        );
        assert_eq!(*l, want);
    }
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// `rgdev run` on a Runtime API program: statistics name its kernels, a preset applies
/// (gf100, compute 2.0: the program is built with PTX for sm_20).
#[test]
fn rgdev_run_on_a_runtime_program() {
    let exe = compile_in("matmul-run", "matmul", &["-arch=sm_20"]);
    let dir = exe.parent().unwrap();
    let (o, stats, t) = run_with_stats(&exe, "gf100", &dir.join("stats.json"), &dir.join("trace.json"));
    assert!(o.contains("all checks passed"), "{o}");
    let kernels = stats["kernels"].as_array().expect("kernels");
    assert_eq!(kernels.len(), 1, "{stats}");
    assert_eq!(kernels[0]["name"], "_Z6matmulPKfS0_Pfiii");
    assert_eq!(kernels[0]["grid"], serde_json::json!([4, 5, 1]));
    assert!(kernels[0]["cycles"].as_u64().unwrap() > 0);
    // The timeline has the kernel and the copies on their tracks.
    let events = &check_trace_schema(&t);
    assert!(events.iter().any(|e| e["name"] == "_Z6matmulPKfS0_Pfiii" && e["ph"] == "X"), "{t}");
    assert!(events.iter().filter(|e| e["ph"] == "X").count() >= 3, "a kernel and its copies");
    let _ = std::fs::remove_dir_all(dir);
}

/// Thread block clusters through the Runtime API (tests/cuda/clusters.cu): cudaLaunchKernelEx
/// with a cluster dimension, cooperative groups' cluster_group (its registers, barrier and
/// map_shared_rank), a distributed histogram with atomics on other blocks' shared memory,
/// cudaOccupancyMaxActiveClusters, the launch errors; on `h200` in both modes, clean under
/// racecheck (a cluster barrier orders the block's shared memory accesses), and refused on a
/// part before compute capability 9.0.
#[test]
fn thread_block_clusters() {
    let exe = compile("clusters", &[]);
    let out = run_ok(&exe, &[("RGDEV_PRESET", "h200")]);
    assert!(out.contains("clusters: 16 blocks in 2x2 clusters"), "{out}");
    let toml = exe.parent().unwrap().join("functional.toml");
    std::fs::write(&toml, "base = \"h200\"\nmode = \"functional\"\n").unwrap();
    assert_eq!(run_ok(&exe, &[("RGDEV_PRESET", toml.to_str().unwrap())]), out, "the same results in both modes");
    assert!(run_ok(&exe, &[("RGDEV_PRESET", "gv100")]).contains("clusters need compute capability 9.0"));
    let o = rgdev().env("RGDEV_PRESET", "h200").args(["run", "--check", "racecheck"]).arg(&exe).output().unwrap();
    let (so, se) = text(&o);
    assert!(o.status.success() && se.contains("ERROR SUMMARY: 0 errors"), "{so}{se}");
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// Kernel parameters beyond 4 KiB (CUDA 12.1's 32,764 bytes from compute capability 7.0):
/// 32,760 bytes by value, two launches in a row on one stream, in both modes
/// (tests/cuda/large_params.cu; before, the launch failed).
#[test]
fn large_kernel_parameters() {
    both_modes("large_params", &[], "large parameters: 32760 bytes");
}
