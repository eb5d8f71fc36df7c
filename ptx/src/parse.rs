//! The parser: tokens to [`crate::ast::Module`], with errors that name the line, the column
//! and what was expected.

use crate::ast::*;
use crate::error::{Pos, PtxError, Result};
use crate::lexer::{Tok, Token, lex};
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// Parse PTX source text.
pub fn parse(src: &str) -> Result<Module> {
    let toks = lex(src)?;
    let mut p = Parser { toks, i: 0, end: Pos::default() };
    p.end = src.lines().count().max(1).try_into().map(|l| Pos { line: l, col: 1 }).unwrap_or_default();
    p.module()
}

/// Deepest operand nesting accepted (PTX itself needs 2: `{!p, q}` or `(a, b)`).
const MAX_OPERAND_NESTING: u32 = 4;

/// The module's functions in declaration order, indexed by name: a definition replaces
/// the earlier declaration (and takes its place at the end), a declaration after a
/// definition is dropped. Linear in the number of functions.
#[derive(Default)]
struct FuncTable {
    list: Vec<Option<Func>>,
    /// The live body-less declaration of a name, if any.
    declared: alloc::collections::BTreeMap<String, usize>,
    /// Names with a definition.
    defined: alloc::collections::BTreeSet<String>,
}

impl FuncTable {
    fn add(&mut self, f: Func) {
        if let Some(i) = self.declared.remove(&f.name) {
            self.list[i] = None;
        }
        if f.body.is_some() {
            self.defined.insert(f.name.clone());
        } else if self.defined.contains(&f.name) {
            return;
        } else {
            self.declared.insert(f.name.clone(), self.list.len());
        }
        self.list.push(Some(f));
    }

    fn finish(self) -> Vec<Func> {
        self.list.into_iter().flatten().collect()
    }
}

struct Parser {
    toks: Vec<Token>,
    i: usize,
    end: Pos,
}

fn describe(t: Option<&Tok>) -> String {
    match t {
        None => "end of input".into(),
        Some(Tok::Ident(s)) => format!("`{s}`"),
        Some(Tok::Int(v)) => format!("`{v}`"),
        Some(Tok::Float(v)) => format!("`{v}`"),
        Some(Tok::F32Bits(v)) => format!("`0f{v:08X}`"),
        Some(Tok::F64Bits(v)) => format!("`0d{v:016X}`"),
        Some(Tok::Str(s)) => format!("\"{s}\""),
        Some(Tok::Punct(c)) => format!("`{c}`"),
    }
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|t| &t.tok)
    }
    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.i + k).map(|t| &t.tok)
    }
    fn pos(&self) -> Pos {
        self.toks.get(self.i).map_or(self.end, |t| t.pos)
    }
    fn bump(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.i).map(|t| t.tok.clone());
        self.i += 1;
        t
    }
    fn expected(&self, what: &str) -> PtxError {
        self.pos().err(format!("expected {what}, found {}", describe(self.peek())))
    }
    fn punct(&mut self, c: char) -> Result<()> {
        if self.peek() == Some(&Tok::Punct(c)) {
            self.i += 1;
            Ok(())
        } else {
            Err(self.expected(&format!("`{c}`")))
        }
    }
    fn eat_punct(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::Punct(c)) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn ident(&mut self, what: &str) -> Result<String> {
        match self.peek() {
            Some(Tok::Ident(s)) => {
                let s = s.clone();
                self.i += 1;
                Ok(s)
            }
            _ => Err(self.expected(what)),
        }
    }
    fn int(&mut self, what: &str) -> Result<u64> {
        match self.peek() {
            Some(&Tok::Int(v)) => {
                self.i += 1;
                Ok(v)
            }
            _ => Err(self.expected(what)),
        }
    }

    fn module(&mut self) -> Result<Module> {
        let mut m = Module::default();
        let mut funcs = FuncTable::default();
        while let Some(t) = self.peek().cloned() {
            let pos = self.pos();
            let Tok::Ident(d) = t else { return Err(self.expected("a directive")) };
            match d.as_str() {
                ".version" => {
                    self.i += 1;
                    m.version = match self.bump() {
                        Some(Tok::Float(v)) => (v as u32, ((v - (v as u32) as f64) * 10.0 + 0.5) as u32),
                        Some(Tok::Int(v)) => (v as u32, 0),
                        _ => return Err(pos.err("expected a version number after `.version`")),
                    };
                    if m.version.0 < 1 {
                        return Err(pos.err(format!(
                            "PTX version {}.{} is not supported (1.0 and later are)",
                            m.version.0, m.version.1
                        )));
                    }
                }
                ".target" => {
                    self.i += 1;
                    m.target.push(self.ident("a target")?);
                    while self.eat_punct(',') {
                        m.target.push(self.ident("a target")?);
                    }
                }
                ".address_size" => {
                    self.i += 1;
                    m.address_size = self.int("an address size")? as u32;
                    if m.address_size != 64 {
                        return Err(pos.err("only `.address_size 64` is supported"));
                    }
                }
                ".file" | ".loc" => {
                    self.i += 1;
                    while matches!(self.peek(), Some(Tok::Int(_) | Tok::Str(_) | Tok::Punct(','))) {
                        self.i += 1;
                    }
                }
                ".pragma" => {
                    self.i += 1;
                    self.bump();
                    self.punct(';')?;
                }
                _ => self.top_decl(&mut m, &mut funcs)?,
            }
        }
        m.funcs = funcs.finish();
        if m.version == (0, 0) {
            return Err(Pos { line: 1, col: 1 }.err("missing `.version` directive"));
        }
        Ok(m)
    }

    fn top_decl(&mut self, m: &mut Module, funcs: &mut FuncTable) -> Result<()> {
        let mut linkage = Linkage::Internal;
        while let Some(Tok::Ident(s)) = self.peek() {
            linkage = match s.as_str() {
                ".visible" => Linkage::Visible,
                ".weak" | ".common" => Linkage::Weak,
                ".extern" => Linkage::Extern,
                _ => break,
            };
            self.i += 1;
        }
        let pos = self.pos();
        match self.peek() {
            Some(Tok::Ident(s)) if s == ".entry" || s == ".func" => {
                let entry = s == ".entry";
                self.i += 1;
                let mut f = self.func(entry, pos)?;
                // A kernel is the module's interface whatever its directive says.
                f.linkage = if entry && linkage == Linkage::Internal { Linkage::Visible } else { linkage };
                funcs.add(f);
                Ok(())
            }
            Some(Tok::Ident(s)) if s == ".global" || s == ".const" || s == ".shared" => {
                let mut v = self.var()?;
                v.linkage = linkage;
                self.punct(';')?;
                m.vars.push(v);
                Ok(())
            }
            Some(Tok::Ident(s)) if s == ".tex" => {
                // PTX 1.x: `.tex .u32 name;` is a texture reference.
                self.i += 1;
                let _ = self.ident("a type")?;
                let name = self.ident("a texture name")?;
                self.punct(';')?;
                let (ty, vec, align, count, init) = ("texref".into(), 1, 0, None, Vec::new());
                let managed = false;
                m.vars.push(Var {
                    space: StateSpace::Global,
                    name,
                    ty,
                    vec,
                    align,
                    count,
                    init,
                    linkage,
                    managed,
                    pos,
                });
                Ok(())
            }
            _ => Err(self.expected("`.entry`, `.func`, `.global`, `.const` or `.shared`")),
        }
    }

    fn space(s: &str) -> Option<StateSpace> {
        Some(match s {
            ".global" => StateSpace::Global,
            ".shared" => StateSpace::Shared,
            ".const" => StateSpace::Const,
            ".local" => StateSpace::Local,
            ".param" => StateSpace::Param,
            _ => return None,
        })
    }

    /// `.space [.align N] [.vN] .type name[dims] [= init]` (no trailing `;`).
    fn var(&mut self) -> Result<Var> {
        let pos = self.pos();
        let sp = self.ident("a state space")?;
        let space = Self::space(&sp).ok_or_else(|| pos.err(format!("unknown state space `{sp}`")))?;
        let (mut align, mut vec, mut ty, mut managed) = (0, 1, None, false);
        while let Some(Tok::Ident(s)) = self.peek().cloned() {
            if !s.starts_with('.') {
                break;
            }
            self.i += 1;
            match s.as_str() {
                ".align" => align = self.int("an alignment")? as u32,
                ".attribute" => {
                    // `.attribute(.managed)`: the one variable attribute with a meaning here.
                    self.punct('(')?;
                    let a = self.ident("a variable attribute")?;
                    if a != ".managed" || space != StateSpace::Global {
                        return Err(pos.err(format!("variable attribute `{a}` is not supported here")));
                    }
                    self.punct(')')?;
                    managed = true;
                }
                ".v2" => vec = 2,
                ".v4" => vec = 4,
                ".ptr" | ".global" | ".shared" | ".const" | ".local" => {} // .param .u64 .ptr .global .align 1 x
                t => ty = Some(t[1..].to_string()),
            }
        }
        let ty = ty.ok_or_else(|| self.expected("a type"))?;
        let name = self.ident("a variable name")?;
        let mut count = None;
        while self.eat_punct('[') {
            let n = if self.peek() == Some(&Tok::Punct(']')) { 0 } else { self.int("an array size")? };
            self.punct(']')?;
            count = Some(count.unwrap_or(1u64).checked_mul(n).ok_or_else(|| self.expected("a smaller array"))?);
        }
        let mut init = Vec::new();
        if self.eat_punct('=') {
            if HANDLE_TYPES.contains(&ty.as_str()) {
                return Err(pos.err(format!("`.{ty}` initializers (sampler state in PTX) are not supported")));
            }
            if self.eat_punct('{') {
                self.init_list(&mut init)?;
            } else {
                init.push(self.init_value()?);
            }
        }
        Ok(Var { space, name, ty, vec, align, count, init, linkage: Linkage::Internal, managed, pos })
    }

    /// The elements of a braced initializer whose `{` has been read, nested lists
    /// flattened. Iterative: nesting depth costs no stack.
    fn init_list(&mut self, out: &mut Vec<Init>) -> Result<()> {
        let mut depth = 1usize;
        loop {
            if self.eat_punct('{') {
                depth += 1;
                continue;
            }
            out.push(self.init_value()?);
            // After an element: close lists, then a comma (or the end of the outermost).
            loop {
                if !self.eat_punct('}') {
                    self.punct(',')?;
                    break;
                }
                depth -= 1;
                if depth == 0 {
                    return Ok(());
                }
            }
        }
    }

    fn init_value(&mut self) -> Result<Init> {
        let neg = self.eat_punct('-');
        let v = match self.bump() {
            Some(Tok::Int(v)) => Init::Int(if neg { v.wrapping_neg() } else { v }),
            Some(Tok::Float(v)) => Init::Float(if neg { -v } else { v }),
            Some(Tok::F32Bits(v)) => Init::F32(v),
            Some(Tok::F64Bits(v)) => Init::F64(v),
            Some(Tok::Ident(s)) if s == "generic" => {
                self.punct('(')?;
                let s = self.ident("a symbol")?;
                self.punct(')')?;
                Init::Sym(s, self.init_offset()?)
            }
            Some(Tok::Ident(s)) => Init::Sym(s, self.init_offset()?),
            _ => {
                self.i -= 1;
                return Err(self.expected("an initializer"));
            }
        };
        Ok(v)
    }

    /// The byte offset after an address initializer's symbol (`+8`, `-4`), if any.
    fn init_offset(&mut self) -> Result<i64> {
        let neg = if self.eat_punct('+') {
            false
        } else if self.eat_punct('-') {
            true
        } else {
            return Ok(0);
        };
        let v = self.int("an offset")? as i64;
        Ok(if neg { v.wrapping_neg() } else { v })
    }

    fn params(&mut self) -> Result<Vec<Var>> {
        self.punct('(')?;
        let mut v = Vec::new();
        if self.eat_punct(')') {
            return Ok(v);
        }
        loop {
            v.push(self.var()?);
            if self.eat_punct(')') {
                return Ok(v);
            }
            self.punct(',')?;
        }
    }

    fn func(&mut self, entry: bool, pos: Pos) -> Result<Func> {
        let rets = if !entry && self.peek() == Some(&Tok::Punct('(')) { self.params()? } else { Vec::new() };
        let name = self.ident("a function name")?;
        let params = if self.peek() == Some(&Tok::Punct('(')) { self.params()? } else { Vec::new() };
        let (mut max_threads, mut max_regs, mut min_blocks) = (None, None, None);
        let (mut cluster, mut explicit_cluster) = (None, false);
        loop {
            match self.peek().cloned() {
                Some(Tok::Ident(d)) if d == ".maxntid" || d == ".reqntid" => {
                    self.i += 1;
                    let mut n = self.int("a thread count")?;
                    while self.eat_punct(',') {
                        n = n.saturating_mul(self.int("a thread count")?);
                    }
                    max_threads = Some(n.min(u32::MAX as u64) as u32);
                }
                Some(Tok::Ident(d))
                    if d == ".minnctapersm" || d == ".maxnreg" || d == ".maxnctapersm" || d == ".maxclusterrank" =>
                {
                    self.i += 1;
                    let n = Some(self.int("a number")?.min(u32::MAX as u64) as u32);
                    match d.as_str() {
                        ".maxnreg" => max_regs = n,
                        ".minnctapersm" => min_blocks = n,
                        _ => {}
                    }
                }
                // The thread block cluster shape the kernel launches with (at most 16
                // blocks, Hopper's non-portable limit).
                Some(Tok::Ident(d)) if d == ".reqnctapercluster" => {
                    self.i += 1;
                    let mut dims = alloc::vec![self.int("a cluster dimension")?];
                    while self.eat_punct(',') {
                        dims.push(self.int("a cluster dimension")?);
                    }
                    let n = dims.iter().try_fold(1u64, |a, &d| a.checked_mul(d)).unwrap_or(u64::MAX);
                    if dims.len() > 3 || dims.contains(&0) || n > hw::isa::MAX_CLUSTER_BLOCKS as u64 {
                        let list: Vec<String> = dims.iter().map(|n| n.to_string()).collect();
                        return Err(pos.err(format!(
                            "`{name}`: `.reqnctapercluster {}`: a cluster is 1 to 3 dimensions of at most {} blocks",
                            list.join(", "),
                            hw::isa::MAX_CLUSTER_BLOCKS
                        )));
                    }
                    dims.resize(3, 1);
                    cluster = Some([dims[0] as u32, dims[1] as u32, dims[2] as u32]);
                }
                Some(Tok::Ident(d)) if d == ".explicitcluster" => {
                    self.i += 1;
                    explicit_cluster = true;
                }
                Some(Tok::Ident(d)) if d == ".noreturn" => self.i += 1,
                Some(Tok::Ident(d)) if d == ".pragma" => {
                    self.i += 1;
                    self.bump();
                    self.punct(';')?;
                }
                _ => break,
            }
        }
        let body = if self.eat_punct(';') {
            None
        } else {
            self.punct('{')?;
            let mut body = Vec::new();
            self.block(&mut body)?;
            Some(body)
        };
        Ok(Func {
            name,
            entry,
            params,
            rets,
            body,
            linkage: Linkage::Internal,
            max_threads,
            max_regs,
            min_blocks,
            cluster,
            explicit_cluster,
            pos,
        })
    }

    /// Statements up to the closing `}` (nested scopes flattened; iterative, so nesting
    /// depth costs no stack). A register declared in a nested scope is that scope's own: it
    /// is renamed `name{k}` (k counting the function's scopes; braces cannot occur in a PTX
    /// name), and the scope's instructions use the new name, so it neither clashes with
    /// nor hides a register or symbol of the same name outside (clang writes
    /// `{ .reg .b32 tmp; mov.b64 {tmp, %r1}, %rd1; }` beside a module variable `tmp`).
    fn block(&mut self, out: &mut Vec<Stmt>) -> Result<()> {
        let mut depth = 0usize;
        // The renamed registers of the open nested scopes that declare some (with their
        // depth), innermost last.
        let mut scopes: Vec<(usize, BTreeMap<String, String>)> = Vec::new();
        let mut scope_ids = 0usize;
        loop {
            let pos = self.pos();
            match self.peek().cloned() {
                None => return Err(self.expected("`}`")),
                Some(Tok::Punct('}')) => {
                    self.i += 1;
                    if depth == 0 {
                        return Ok(());
                    }
                    if scopes.last().is_some_and(|s| s.0 == depth) {
                        scopes.pop();
                    }
                    depth -= 1;
                }
                Some(Tok::Punct('{')) => {
                    self.i += 1;
                    depth += 1;
                    scope_ids += 1;
                }
                Some(Tok::Ident(d)) if d == ".reg" => {
                    self.i += 1;
                    let mut ty = None;
                    while let Some(Tok::Ident(s)) = self.peek().cloned() {
                        if !s.starts_with('.') {
                            break;
                        }
                        self.i += 1;
                        if s != ".v2" && s != ".v4" {
                            ty = Some(s[1..].to_string());
                        }
                    }
                    let ty = ty.ok_or_else(|| self.expected("a register type"))?;
                    let mut names = Vec::new();
                    loop {
                        let n = self.ident("a register name")?;
                        if self.eat_punct('<') {
                            let count = self.int("a register count")?;
                            self.punct('>')?;
                            if count > 1 << 16 {
                                return Err(pos.err("too many registers"));
                            }
                            names.extend((0..count).map(|k| format!("{n}{k}")));
                        } else {
                            names.push(n);
                        }
                        if !self.eat_punct(',') {
                            break;
                        }
                    }
                    self.punct(';')?;
                    if depth > 0 {
                        if scopes.last().is_none_or(|s| s.0 != depth) {
                            scopes.push((depth, BTreeMap::new()));
                        }
                        let scope = &mut scopes.last_mut().expect("pushed").1;
                        for n in names.iter_mut() {
                            let own = format!("{n}{{{scope_ids}}}");
                            scope.insert(core::mem::replace(n, own.clone()), own);
                        }
                    }
                    out.push(Stmt::Reg(ty, names));
                }
                Some(Tok::Ident(d)) if d == ".local" || d == ".shared" || d == ".param" => {
                    let v = self.var()?;
                    self.punct(';')?;
                    out.push(Stmt::Var(v));
                }
                Some(Tok::Ident(d)) if d == ".pragma" => {
                    self.i += 1;
                    self.bump();
                    self.punct(';')?;
                }
                Some(Tok::Ident(d)) if d == ".loc" || d == ".file" => {
                    self.i += 1;
                    while matches!(self.peek(), Some(Tok::Int(_) | Tok::Str(_) | Tok::Punct(','))) {
                        self.i += 1;
                    }
                }
                Some(Tok::Ident(name)) if self.peek_at(1) == Some(&Tok::Punct(':')) => {
                    self.i += 2;
                    match self.peek().cloned() {
                        // An indirect call's signature: the call site's own lists say it.
                        Some(Tok::Ident(d)) if d == ".callprototype" => {
                            while self.bump().is_some_and(|t| t != Tok::Punct(';')) {}
                        }
                        Some(Tok::Ident(d)) if d == ".branchtargets" || d == ".calltargets" => {
                            self.i += 1;
                            let mut list = Vec::new();
                            loop {
                                list.push(self.ident("a target")?);
                                if !self.eat_punct(',') {
                                    break;
                                }
                            }
                            self.punct(';')?;
                            out.push(Stmt::Targets(name, list));
                        }
                        _ => out.push(Stmt::Label(name, pos)),
                    }
                }
                Some(Tok::Ident(_)) | Some(Tok::Punct('@')) => {
                    let mut i = self.instr()?;
                    if !scopes.is_empty() {
                        let own = |n: &str| scopes.iter().rev().find_map(|s| s.1.get(n).cloned());
                        i.args.iter_mut().for_each(|a| a.rename(&own));
                        if let Some((_, g)) = &mut i.guard
                            && let Some(t) = own(g)
                        {
                            *g = t;
                        }
                    }
                    out.push(Stmt::Instr(i));
                }
                _ => return Err(self.expected("an instruction, a declaration or `}`")),
            }
        }
    }

    fn instr(&mut self) -> Result<Instr> {
        let pos = self.pos();
        let guard = if self.eat_punct('@') {
            let neg = self.eat_punct('!');
            Some((neg, self.ident("a predicate register")?))
        } else {
            None
        };
        let opos = self.pos();
        let full = self.ident("an opcode")?;
        if full.starts_with('.') || full.starts_with('%') {
            return Err(opos.err(format!("expected an opcode, found `{full}`")));
        }
        let mut parts = full.split('.');
        let op = parts.next().unwrap_or_default().to_string();
        // A qualified modifier (`.shared::cta`, `.L2::128B`) counts as its base too.
        let mods = parts
            .flat_map(|s| match s.split_once("::") {
                Some((base, _)) => alloc::vec![base.to_string(), s.to_string()],
                None => alloc::vec![s.to_string()],
            })
            .collect();
        let mut args = Vec::new();
        if !self.eat_punct(';') {
            loop {
                args.push(self.operand(0)?);
                if self.eat_punct(';') {
                    break;
                }
                if !self.eat_punct(',') {
                    // `setp.lt.s32 %p|%q, ...`: the second destination.
                    if self.eat_punct('|') {
                        continue;
                    }
                    return Err(self.expected("`,` or `;`"));
                }
            }
        }
        Ok(Instr { pos, guard, op, mods, args })
    }

    /// One operand. PTX nests operands at most two deep (`{a, b}` vectors, `(a, b)` call
    /// lists, `!p`); deeper nesting is refused rather than recursed into.
    fn operand(&mut self, depth: u32) -> Result<Operand> {
        if depth > MAX_OPERAND_NESTING {
            return Err(self.pos().err("operand nested too deeply"));
        }
        match self.peek().cloned() {
            Some(Tok::Punct('[')) => {
                self.i += 1;
                let base = match self.peek().cloned() {
                    Some(Tok::Ident(s)) => {
                        self.i += 1;
                        Operand::Name(s)
                    }
                    Some(Tok::Int(v)) => {
                        self.i += 1;
                        Operand::Int(v)
                    }
                    _ => return Err(self.expected("a register or symbol in `[...]`")),
                };
                let mut off: i64 = 0;
                while matches!(self.peek(), Some(Tok::Punct('+') | Tok::Punct('-'))) {
                    let neg = self.bump() == Some(Tok::Punct('-'));
                    let neg = neg ^ self.eat_punct('-');
                    let v = self.int("an offset")? as i64;
                    off = off.wrapping_add(if neg { v.wrapping_neg() } else { v });
                }
                if off == 0 && self.eat_punct(',') {
                    // A texture or surface access: `[tex, {x, y}]`, `[tex, sampler, {x}]`.
                    let mut parts = alloc::vec![base];
                    loop {
                        parts.push(self.operand(depth + 1)?);
                        if self.eat_punct(']') {
                            return Ok(Operand::Tex(parts));
                        }
                        self.punct(',')?;
                    }
                }
                self.punct(']')?;
                Ok(Operand::Addr(Box::new(base), off))
            }
            Some(Tok::Punct('{')) => {
                self.i += 1;
                let mut v = Vec::new();
                loop {
                    v.push(self.operand(depth + 1)?);
                    if self.eat_punct('}') {
                        return Ok(Operand::Vector(v));
                    }
                    self.punct(',')?;
                }
            }
            Some(Tok::Punct('(')) => {
                self.i += 1;
                let mut v = Vec::new();
                if self.eat_punct(')') {
                    return Ok(Operand::List(v));
                }
                loop {
                    v.push(self.operand(depth + 1)?);
                    if self.eat_punct(')') {
                        return Ok(Operand::List(v));
                    }
                    self.punct(',')?;
                }
            }
            Some(Tok::Punct('!')) => {
                self.i += 1;
                Ok(Operand::Not(Box::new(self.operand(depth + 1)?)))
            }
            Some(Tok::Punct('-')) => {
                self.i += 1;
                match self.bump() {
                    Some(Tok::Int(v)) => Ok(Operand::Int(v.wrapping_neg())),
                    Some(Tok::Float(v)) => Ok(Operand::Float(-v)),
                    _ => {
                        self.i -= 1;
                        Err(self.expected("a number after `-`"))
                    }
                }
            }
            Some(Tok::Ident(s)) => {
                self.i += 1;
                Ok(Operand::Name(s))
            }
            Some(Tok::Int(v)) => {
                self.i += 1;
                Ok(Operand::Int(v))
            }
            Some(Tok::Float(v)) => {
                self.i += 1;
                Ok(Operand::Float(v))
            }
            Some(Tok::F32Bits(v)) => {
                self.i += 1;
                Ok(Operand::F32(v))
            }
            Some(Tok::F64Bits(v)) => {
                self.i += 1;
                Ok(Operand::F64(v))
            }
            _ => Err(self.expected("an operand")),
        }
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod nesting;
