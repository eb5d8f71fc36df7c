//! `rgdev cc`'s command line, checked.

use super::*;

fn args(v: &[&str]) -> Result<Args, String> {
    parse(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>())
}

#[test]
fn nvcc_flags_in_their_spellings() {
    let a = args(&["-arch=sm_60", "-O2", "-I", "inc", "-DN=4", "-c", "k.cu", "-o", "k.o"]).unwrap();
    assert_eq!(a.archs, vec![60]);
    assert_eq!(a.cflags, vec!["-Iinc", "-DN=4"]);
    assert_eq!(a.host_flags, vec!["-O2"]);
    assert!(a.compile_only);
    assert_eq!(a.output.as_deref(), Some("k.o"));
    assert_eq!(a.inputs, vec!["k.cu"]);
    let a = args(&["-gencode", "arch=compute_70,code=sm_70", "-arch", "sm_52", "-Xcompiler", "-Wall,-fPIC"]).unwrap();
    assert_eq!(a.archs, vec![52, 70]);
    assert_eq!(a.host_flags, vec!["-Wall", "-fPIC"]);
    let a = args(&["-Lx", "-l", "m", "-Xlinker", "-z,now", "-cudart", "shared", "a.cu", "-oprog"]).unwrap();
    assert_eq!(a.link_flags, vec!["-Lx", "-lm", "-Wl,-z", "-Wl,now"]);
    assert_eq!(a.output.as_deref(), Some("prog"));
    assert_eq!(args(&["x.cu"]).unwrap().archs, vec![70]);
}

#[test]
fn nvcc_floating_point_and_register_options() {
    let a = args(&["-use_fast_math", "k.cu"]).unwrap();
    assert!(a.ftz && !a.prec_div && !a.prec_sqrt && a.fmad && a.fast_math);
    let a = args(&["--ftz=true", "-prec-div", "false", "-fmad=false", "-maxrregcount", "40", "k.cu"]).unwrap();
    assert!(a.ftz && !a.prec_div && a.prec_sqrt && !a.fmad && !a.fast_math);
    assert_eq!(a.max_regs, Some(40));
    let a = args(&["-Xptxas", "-v,-O3", "--ptxas-options=--maxrregcount=32", "-x", "cu", "k.cpp"]).unwrap();
    assert_eq!((a.ptxas.clone(), a.max_regs, a.force_cuda), (vec!["-v".into(), "-O3".into()], Some(32), true));
    let a = args(&["-lcudadevrt", "-l", "cudadevrt", "-ccbin", "g++", "--expt-relaxed-constexpr", "-dlink", "k.o"]);
    assert!(a.as_ref().unwrap().link_flags.is_empty() && a.unwrap().dlink);
    assert!(args(&["-ftz=yes", "k.cu"]).unwrap_err().contains("-ftz"));
    assert!(args(&["-maxrregcount=0", "k.cu"]).unwrap_err().contains("register count"));
    assert!(args(&["-x", "f90", "k.cu"]).is_err());
    assert_eq!(fp_option("-fmadness"), None);
}

#[test]
fn bad_flags_and_files_are_named() {
    assert!(args(&["--frobnicate"]).unwrap_err().contains("--frobnicate"));
    assert!(args(&["-arch=sm_9"]).unwrap_err().contains("sm_9"));
    assert!(args(&["-cudart", "static"]).unwrap_err().contains("shared"));
    assert!(args(&["-o"]).unwrap_err().contains("-o"));
    assert!(kind("prog.f90", false).unwrap_err().contains("prog.f90"));
    assert_eq!(kind("libx.so.1", false).unwrap(), Kind::Link);
    assert_eq!(kind("k.cpp", true).unwrap(), Kind::Cuda);
}
