//! The PTX syntax tree: a module of variables and functions, functions of statements.

use crate::error::Pos;
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

/// State spaces of variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateSpace {
    /// `.global`
    Global,
    /// `.shared`
    Shared,
    /// `.const`
    Const,
    /// `.local`
    Local,
    /// `.param`
    Param,
}

/// Types of `.global` variables that are handles rather than memory: texture, surface
/// and sampler references.
pub const HANDLE_TYPES: &[&str] = &["texref", "surfref", "samplerref"];

/// How a module-scope symbol links with other modules (PTX's linking directives).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Linkage {
    /// No directive: this module's own (function-scope variables and parameters too).
    #[default]
    Internal,
    /// `.visible` (and every `.entry`): one module defines it, others may name it.
    Visible,
    /// `.weak` or `.common`: a definition that another module's may replace.
    Weak,
    /// `.extern`: declared here, defined in another module (or `.extern .shared` arrays
    /// sized at launch).
    Extern,
}

/// A variable declaration (module scope, function scope, or a parameter).
#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    /// Where it lives.
    pub space: StateSpace,
    /// Name.
    pub name: String,
    /// Element type (`b8`, `u32`, `f64`, ...).
    pub ty: String,
    /// Vector width (`.v2`, `.v4`), 1 otherwise.
    pub vec: u32,
    /// Alignment in bytes (0 = natural).
    pub align: u32,
    /// Array elements: `None` for a scalar, `Some(0)` for `name[]` (sized at launch).
    pub count: Option<u64>,
    /// Initializer values.
    pub init: Vec<Init>,
    /// How it links (`.extern`, `.visible`, ...).
    pub linkage: Linkage,
    /// `.attribute(.managed)`: a managed variable (`__managed__`), whose storage the
    /// loader places in managed memory rather than in the module's `.global` segment.
    pub managed: bool,
    /// Where it was declared.
    pub pos: Pos,
}

/// An initializer value.
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    /// Integer.
    Int(u64),
    /// Float written in decimal.
    Float(f64),
    /// Single-precision bits.
    F32(u32),
    /// Double-precision bits.
    F64(u64),
    /// The address of a symbol plus a byte offset (`sym`, `generic(sym)`, `generic(sym)+8`).
    Sym(String, i64),
}

/// A function.
#[derive(Clone, Debug, PartialEq)]
pub struct Func {
    /// Name.
    pub name: String,
    /// `.entry` (a kernel) or `.func`.
    pub entry: bool,
    /// Parameters.
    pub params: Vec<Var>,
    /// Return parameters (`.func` only).
    pub rets: Vec<Var>,
    /// Body, or `None` for a declaration.
    pub body: Option<Vec<Stmt>>,
    /// How it links.
    pub linkage: Linkage,
    /// `.maxntid`/`.reqntid` (threads per block), if given.
    pub max_threads: Option<u32>,
    /// `.maxnreg` (registers per thread), if given.
    pub max_regs: Option<u32>,
    /// `.minnctapersm` (blocks of `max_threads` an SM must hold at once), if given.
    pub min_blocks: Option<u32>,
    /// `.reqnctapercluster` (the thread block cluster's shape it launches with), if given.
    pub cluster: Option<[u32; 3]>,
    /// `.explicitcluster`: it must be launched with a cluster shape.
    pub explicit_cluster: bool,
    /// Where it was declared.
    pub pos: Pos,
}

/// A statement of a function body (nested scopes are flattened).
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `.reg .ty %r<N>` or `.reg .ty %a, %b`: (type, names).
    Reg(String, Vec<String>),
    /// A `.local`, `.shared` or `.param` variable.
    Var(Var),
    /// A label.
    Label(String, Pos),
    /// An instruction.
    Instr(Instr),
    /// `name: .branchtargets L1, ...;` or `name: .calltargets f1, ...;`: the targets an
    /// indirect branch (`brx.idx`) or call may take, in order.
    Targets(String, Vec<String>),
}

/// An instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct Instr {
    /// Where it is.
    pub pos: Pos,
    /// `@p` / `@!p` guard: (negated, register).
    pub guard: Option<(bool, String)>,
    /// The opcode (`ld`).
    pub op: String,
    /// The modifiers (`global`, `v4`, `f32`).
    pub mods: Vec<String>,
    /// The operands.
    pub args: Vec<Operand>,
}

impl Instr {
    /// Whether modifier `m` is present.
    pub fn has(&self, m: &str) -> bool {
        self.mods.iter().any(|x| x == m)
    }
}

/// An operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// A register (`%r1`, `%tid.x`) or a symbol (variable, label, function, `_`).
    Name(String),
    /// An integer (two's complement for negative literals).
    Int(u64),
    /// A decimal float.
    Float(f64),
    /// Single-precision bits.
    F32(u32),
    /// Double-precision bits.
    F64(u64),
    /// `[base + offset]`.
    Addr(Box<Operand>, i64),
    /// `{a, b, ...}`.
    Vector(Vec<Operand>),
    /// `(a, b, ...)` in calls.
    List(Vec<Operand>),
    /// `!p`.
    Not(Box<Operand>),
    /// `[tex, {coords}]`, `[tex, sampler, {coords}]`, `[surf, {coords}]`: the operands of
    /// a texture or surface access, in order.
    Tex(Vec<Operand>),
}

impl Operand {
    /// Call `f` with every name (register or symbol) in this operand, in order.
    pub fn each_name<'a>(&'a self, f: &mut impl FnMut(&'a str)) {
        match self {
            Operand::Name(n) => f(n),
            Operand::Addr(b, _) | Operand::Not(b) => b.each_name(f),
            Operand::Vector(v) | Operand::List(v) | Operand::Tex(v) => v.iter().for_each(|x| x.each_name(f)),
            _ => {}
        }
    }

    /// Replace every name for which `f` gives a new one.
    pub fn rename(&mut self, f: &impl Fn(&str) -> Option<String>) {
        match self {
            Operand::Name(n) => {
                if let Some(t) = f(n) {
                    *n = t;
                }
            }
            Operand::Addr(b, _) | Operand::Not(b) => b.rename(f),
            Operand::Vector(v) | Operand::List(v) | Operand::Tex(v) => v.iter_mut().for_each(|x| x.rename(f)),
            _ => {}
        }
    }
}

/// A module.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Module {
    /// `.version` (major, minor).
    pub version: (u32, u32),
    /// `.target` entries.
    pub target: Vec<String>,
    /// `.address_size`.
    pub address_size: u32,
    /// Module-scope variables.
    pub vars: Vec<Var>,
    /// Functions and kernels.
    pub funcs: Vec<Func>,
}
