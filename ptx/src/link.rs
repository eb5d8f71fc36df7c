//! The device linker: several parsed PTX modules into one, as nvlink joins separately
//! compiled device code (cuLink*, `-rdc`). Symbols resolve by PTX's linking directives:
//!
//! - a `.visible` definition (every `.entry` too) is the one definition of its name:
//!   another is a multiple-definition error, unless one of the two is `.weak`/`.common`,
//!   which gives way (the first of several weak definitions wins, as in nvlink);
//! - an `.extern` or body-less declaration resolves to the definition of another module,
//!   which must have the same signature; none is an undefined-reference error
//!   (`.extern .shared` arrays sized at launch need none: they name the dynamic shared
//!   memory);
//! - a symbol without a directive is its module's own: when another module defines the
//!   same name, it is renamed (`name$N`, N the input's index), and so are the references
//!   to it in its module.
//!
//! The result is one module, compiled as any other. Errors name the symbol and the inputs.

use crate::ast::{Func, Init, Linkage, Module, Stmt, Var};
use crate::error::{Pos, PtxError, Result};
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// One input: its name (a file name or what cuLinkAddData was given) and its module.
pub struct Input {
    /// Named in errors.
    pub name: String,
    /// The parsed module.
    pub module: Module,
}

/// An error about `what` at `pos` of input `name`.
fn err(name: &str, pos: Pos, what: String) -> PtxError {
    pos.err(format!("{name}: {what}"))
}

/// Where a linked symbol's definition comes from.
#[derive(Clone, Copy)]
struct Owner {
    input: usize,
    weak: bool,
    pos: Pos,
}

/// What a definition of a function or variable looks like to the linker.
struct Def<'a> {
    name: &'a str,
    linkage: Linkage,
    pos: Pos,
}

fn defs(m: &Module) -> impl Iterator<Item = Def<'_>> {
    let funcs =
        m.funcs.iter().filter(|f| f.body.is_some()).map(|f| Def { name: &f.name, linkage: f.linkage, pos: f.pos });
    let vars = m.vars.iter().filter(|v| v.linkage != Linkage::Extern).map(|v| Def {
        name: &v.name,
        linkage: v.linkage,
        pos: v.pos,
    });
    funcs.chain(vars)
}

/// Link `inputs` into one module (see the module documentation).
pub fn link(mut inputs: Vec<Input>) -> Result<Module> {
    let first = inputs.first().ok_or_else(|| Pos::default().err("nothing to link"))?;
    let address_size = first.module.address_size;
    if let Some(i) = inputs.iter().find(|i| i.module.address_size != address_size) {
        let what = format!(".address_size {} differs from {}'s {address_size}", i.module.address_size, first.name);
        return Err(err(&i.name, Pos::default(), what));
    }

    for input in inputs.iter_mut() {
        resolve_clang_statics(&mut input.module);
    }

    // The definitions every module can see.
    let mut owners: BTreeMap<String, Owner> = BTreeMap::new();
    for (k, input) in inputs.iter().enumerate() {
        for d in defs(&input.module).filter(|d| d.linkage != Linkage::Internal) {
            let weak = d.linkage == Linkage::Weak;
            let new = Owner { input: k, weak, pos: d.pos };
            match owners.get(d.name) {
                None => {}
                Some(o) if o.weak => {}
                Some(_) if weak => continue,
                Some(o) => {
                    let what =
                        format!("multiple definitions of `{}` (the other is in {})", d.name, inputs[o.input].name);
                    return Err(err(&input.name, d.pos, what));
                }
            }
            if owners.get(d.name).is_none_or(|o| o.weak && !weak) {
                owners.insert(d.name.into(), new);
            }
        }
    }

    // Each module's own symbols, renamed where another module defines the same name.
    let mut internal_count: BTreeMap<String, usize> = BTreeMap::new();
    for input in &inputs {
        for d in defs(&input.module).filter(|d| d.linkage == Linkage::Internal) {
            *internal_count.entry(d.name.into()).or_default() += 1;
        }
    }
    for (k, input) in inputs.iter_mut().enumerate() {
        let clash: BTreeSet<String> = defs(&input.module)
            .filter(|d| d.linkage == Linkage::Internal)
            .filter(|d| owners.contains_key(d.name) || internal_count[d.name] > 1)
            .map(|d| d.name.into())
            .collect();
        if !clash.is_empty() {
            rename_internal(&mut input.module, &clash, k);
        }
    }

    let mut out = Module {
        version: inputs.iter().map(|i| i.module.version).max().unwrap_or_default(),
        target: first_target(&inputs),
        address_size,
        vars: Vec::new(),
        funcs: Vec::new(),
    };
    let defined_fn = |name: &str, k: usize, inputs: &[Input]| -> Option<usize> {
        owners
            .get(name)
            .map(|o| o.input)
            .or_else(|| inputs[k].module.funcs.iter().any(|f| f.name == name && f.body.is_some()).then_some(k))
    };
    let mut dynamic_shared = BTreeSet::new();
    for k in 0..inputs.len() {
        let input = &inputs[k];
        for v in &input.module.vars {
            match v.linkage {
                Linkage::Extern if v.count == Some(0) && !owners.contains_key(&v.name) => {
                    if dynamic_shared.insert(v.name.clone()) {
                        out.vars.push(v.clone());
                    }
                }
                Linkage::Extern => {
                    let o = owners.get(&v.name).ok_or_else(|| undefined(input, &v.name, v.pos))?;
                    let def =
                        inputs[o.input].module.vars.iter().find(|d| d.name == v.name && d.linkage != Linkage::Extern);
                    if !def.is_some_and(|d| same_var(d, v)) {
                        return Err(mismatch(input, &v.name, v.pos, &inputs[o.input].name));
                    }
                }
                Linkage::Internal => out.vars.push(v.clone()),
                Linkage::Visible | Linkage::Weak => {
                    if owners.get(&v.name).is_some_and(|o| o.input == k && o.pos == v.pos) {
                        out.vars.push(v.clone());
                    }
                }
            }
        }
        for f in &input.module.funcs {
            match &f.body {
                None => {
                    let at = defined_fn(&f.name, k, &inputs).ok_or_else(|| undefined(input, &f.name, f.pos))?;
                    let def = inputs[at].module.funcs.iter().find(|d| d.name == f.name && d.body.is_some());
                    if !def.is_some_and(|d| same_signature(d, f)) {
                        return Err(mismatch(input, &f.name, f.pos, &inputs[at].name));
                    }
                }
                Some(_) if f.linkage == Linkage::Internal => out.funcs.push(f.clone()),
                Some(_) => {
                    if owners.get(&f.name).is_some_and(|o| o.input == k && o.pos == f.pos) {
                        out.funcs.push(f.clone());
                    }
                }
            }
        }
    }
    Ok(out)
}

/// The first input's `.target` (the inputs are compiled for one device).
fn first_target(inputs: &[Input]) -> Vec<String> {
    inputs.first().map(|i| i.module.target.clone()).unwrap_or_default()
}

fn undefined(input: &Input, name: &str, pos: Pos) -> PtxError {
    err(&input.name, pos, format!("undefined reference to `{name}`"))
}

fn mismatch(input: &Input, name: &str, pos: Pos, other: &str) -> PtxError {
    err(&input.name, pos, format!("`{name}` is declared differently from its definition in {other}"))
}

/// Whether a declaration's parameters and return values match the definition's: the
/// same number, each of the same type, vector width and array length.
fn same_signature(def: &Func, decl: &Func) -> bool {
    let same = |a: &[Var], b: &[Var]| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_var(x, y));
    def.entry == decl.entry && same(&def.params, &decl.params) && same(&def.rets, &decl.rets)
}

/// Whether two declarations of a variable agree (an `.extern` array of unknown length
/// agrees with any length).
fn same_var(a: &Var, b: &Var) -> bool {
    let counts = a.count == b.count || a.count == Some(0) || b.count == Some(0);
    a.space == b.space && a.ty == b.ty && a.vec == b.vec && counts
}

/// Rename module `k`'s own symbols named in `names` to `name$k`, in their declarations,
/// every instruction operand and initializer that names them (registers and a function's
/// own parameters and variables of the same name are left alone).
/// clang's relocatable device code gives a `static __device__` variable a unit-unique name
/// (`name__static__<hash>`) but leaves the module's references to it under the old name,
/// declared `.extern`: such a declaration is dropped and its references name the
/// definition (the one `name__static__*` variable of the same module).
fn resolve_clang_statics(m: &mut Module) {
    let mut map: BTreeMap<String, String> = BTreeMap::new();
    for v in m.vars.iter().filter(|v| v.linkage == Linkage::Extern) {
        let prefix = format!("{}__static__", v.name);
        let mut defs = m.vars.iter().filter(|d| d.linkage != Linkage::Extern && d.name.starts_with(&prefix));
        if let (Some(d), None) = (defs.next(), defs.next()) {
            map.insert(v.name.clone(), d.name.clone());
        }
    }
    if map.is_empty() {
        return;
    }
    m.vars.retain(|v| !(v.linkage == Linkage::Extern && map.contains_key(&v.name)));
    let new = |n: &str| map.get(n).cloned();
    for v in &mut m.vars {
        for i in &mut v.init {
            if let Init::Sym(s, _) = i
                && let Some(n) = new(s)
            {
                *s = n;
            }
        }
    }
    for f in &mut m.funcs {
        let Some(body) = &mut f.body else { continue };
        for s in body.iter_mut() {
            if let Stmt::Instr(i) = s {
                i.args.iter_mut().for_each(|a| a.rename(&new));
            }
        }
    }
}

fn rename_internal(m: &mut Module, names: &BTreeSet<String>, k: usize) {
    let new = |n: &str| names.contains(n).then(|| format!("{n}${k}"));
    for v in &mut m.vars {
        if v.linkage == Linkage::Internal
            && let Some(n) = new(&v.name)
        {
            v.name = n;
        }
        for i in &mut v.init {
            if let Init::Sym(s, _) = i
                && let Some(n) = new(s)
            {
                *s = n;
            }
        }
    }
    for f in &mut m.funcs {
        if f.linkage == Linkage::Internal
            && let Some(n) = new(&f.name)
        {
            f.name = n;
        }
        let Some(body) = &mut f.body else { continue };
        let mut own: BTreeSet<String> = f.params.iter().chain(&f.rets).map(|p| p.name.clone()).collect();
        own.extend(body.iter().filter_map(|s| if let Stmt::Var(v) = s { Some(v.name.clone()) } else { None }));
        let rename = |n: &str| if own.contains(n) { None } else { new(n) };
        for s in body.iter_mut() {
            if let Stmt::Instr(i) = s {
                i.args.iter_mut().for_each(|a| a.rename(&rename));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    fn input(name: &str, body: &str) -> Input {
        let src = format!(".version 7.0\n.target sm_70\n.address_size 64\n{body}");
        Input { name: name.into(), module: parse(&src).unwrap() }
    }

    const CALLER: &str = ".extern .func (.param .b32 r) twice(.param .b32 x);\n\
        .visible .entry k(.param .u64 out) {\n .reg .b32 %r<3>;\n .reg .b64 %rd<2>;\n\
        ld.param.u64 %rd1, [out];\n mov.u32 %r1, 21;\n\
        { .param .b32 a;\n .param .b32 r;\n st.param.b32 [a], %r1;\n\
        call.uni (r), twice, (a);\n ld.param.b32 %r2, [r];\n }\n\
        st.global.u32 [%rd1], %r2;\n ret;\n}\n";
    const CALLEE: &str = ".visible .func (.param .b32 r) twice(.param .b32 x) {\n .reg .b32 %r<3>;\n\
        ld.param.b32 %r1, [x];\n add.u32 %r2, %r1, %r1;\n st.param.b32 [r], %r2;\n ret;\n}\n";

    #[test]
    fn an_extern_function_resolves_to_another_modules_definition() {
        let m = link(alloc::vec![input("a", CALLER), input("b", CALLEE)]).unwrap();
        assert_eq!(m.funcs.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), ["k", "twice"]);
        assert!(m.funcs.iter().all(|f| f.body.is_some()));
        crate::compile(&m).unwrap();
        // Alone, the caller does not compile: its callee is only declared.
        assert!(crate::compile(&input("a", CALLER).module).is_err());
    }

    #[test]
    fn errors_name_the_symbol_and_the_inputs() {
        let e = link(alloc::vec![input("a.ptx", CALLER)]).unwrap_err();
        assert!(e.msg.contains("a.ptx: undefined reference to `twice`"), "{e}");
        let e = link(alloc::vec![input("b1", CALLEE), input("b2", CALLEE)]).unwrap_err();
        assert!(e.msg.contains("b2: multiple definitions of `twice` (the other is in b1)"), "{e}");
        let other = CALLEE.replace("(.param .b32 x)", "(.param .b64 x)");
        let e = link(alloc::vec![input("a", CALLER), input("b", &other)]).unwrap_err();
        assert!(e.msg.contains("`twice` is declared differently from its definition in b"), "{e}");
        let e = link(alloc::vec![input("g", ".extern .global .u32 n;\n")]).unwrap_err();
        assert!(e.msg.contains("undefined reference to `n`"), "{e}");
        assert!(link(Vec::new()).is_err());
    }

    #[test]
    fn weak_definitions_give_way_and_own_symbols_are_renamed_apart() {
        let weak = CALLEE.replace(".visible", ".weak");
        let m = link(alloc::vec![input("w", &weak), input("a", CALLER), input("b", CALLEE)]).unwrap();
        assert_eq!(m.funcs.iter().filter(|f| f.name == "twice").count(), 1);
        assert_eq!(m.funcs.iter().find(|f| f.name == "twice").unwrap().linkage, Linkage::Visible);

        // Two modules with a helper and a variable of the same name, each their own.
        let own = |k: u32| {
            format!(
                ".global .u32 v = {k};\n.func (.param .b32 r) h() {{\n .reg .b32 %r<2>;\n\
                 ld.global.u32 %r1, [v];\n st.param.b32 [r], %r1;\n ret;\n}}\n\
                 .visible .entry e{k}(.param .u64 out) {{\n .reg .b32 %r<2>;\n .reg .b64 %rd<2>;\n\
                 ld.param.u64 %rd1, [out];\n {{ .param .b32 r;\n call.uni (r), h, ();\n\
                 ld.param.b32 %r1, [r];\n }}\n st.global.u32 [%rd1], %r1;\n ret;\n}}\n"
            )
        };
        let m = link(alloc::vec![input("x", &own(1)), input("y", &own(2))]).unwrap();
        let names: Vec<&str> = m.funcs.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["h$0", "e1", "h$1", "e2"]);
        assert_eq!(m.vars.iter().map(|v| v.name.as_str()).collect::<Vec<_>>(), ["v$0", "v$1"]);
        let p = crate::compile(&m).unwrap();
        assert_eq!(p.kernels.len(), 2);
    }

    #[test]
    fn extern_variables_and_dynamic_shared_memory() {
        let user = ".extern .global .align 4 .u32 n;\n.extern .shared .align 4 .b8 dyn[];\n\
            .visible .entry k() {\n .reg .b32 %r<2>;\n ld.global.u32 %r1, [n];\n st.shared.u32 [dyn], %r1;\n ret;\n}\n";
        let def = ".visible .global .align 4 .u32 n = 5;\n.extern .shared .align 4 .b8 dyn[];\n";
        let m = link(alloc::vec![input("u", user), input("d", def)]).unwrap();
        assert_eq!(m.vars.iter().map(|v| v.name.as_str()).collect::<Vec<_>>(), ["dyn", "n"]);
        crate::compile(&m).unwrap();
        let wrong = def.replace(".u32 n", ".f64 n").replace("= 5", "= 0d4014000000000000");
        assert!(link(alloc::vec![input("u", user), input("d", &wrong)]).is_err());
    }
}
