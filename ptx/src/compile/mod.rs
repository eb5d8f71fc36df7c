//! PTX to the device ISA, one module per compiler phase:
//!
//! 1. `layout`: module variables placed in their state spaces: kernel parameters in
//!    constant bank 0 (at the offsets of [`Kernel::params`]), module `.const` variables in
//!    bank 1, `.global` variables in a data segment the runtime places in VRAM
//!    (instructions that need its address carry a [`Reloc`]), `.shared` variables at static
//!    offsets of the block's shared memory with `extern .shared` arrays after them (the
//!    shared variables of `.func`s first, at the same offsets in every kernel that reaches
//!    them), `.local` variables in a per-thread frame.
//! 2. `calls`: static frames for `.func`s, call fixups, no recursion.
//! 3. `offsets` (a shared variable's address and literals added to an address go into the
//!    access's offset), `copies`: copy propagation and constant operands (kernel parameters,
//!    module constants at fixed addresses, the grid's shape); `fuse` (`mul.wide` + `add` as
//!    `mad.wide`, a product made once recomputed as a multiply-add where it is added), `hoist` (loop-invariant second literals in registers), `pressure` (the
//!    relieved body).
//! 4. Instruction selection: `select` (operands, emitting), `instr` (the instructions),
//!    `memory` (addresses, loads, stores; a vector load's words read in its group).
//! 5. `flow`: every `ret`/`exit` becomes a branch to the function's single exit block;
//!    each conditional branch carries its reconvergence point, the immediate post-dominator
//!    of its basic block.
//! 6. `regalloc`: each PTX register (and each scratch value instruction selection made)
//!    split into its live ranges, coloured on an interference graph in 32-bit units as
//!    ptxas counts registers (64-bit values in even-aligned pairs, narrowed to one unit when
//!    only their low 32 bits are used), predicates in `P0..P6`. Values live across a call
//!    sit above the registers of the functions called (compiled callees first), so a
//!    kernel pays for the call chain it reaches. R1 stays free (the ABI's stack pointer);
//!    an instruction the real part runs as a sequence (`hw::isa::Sequence`) holds that
//!    sequence's registers at its place. Spilling (`crate::spill`) folds functions
//!    declaring more than [`MAX_REGS`] PTX registers first. A kernel's count adds the
//!    registers NVIDIA's ABI reserves ([`abi_regs`]).
//!
//! This module runs the phases over a parsed module ([`compile`]). Anything outside the
//! supported subset is an error naming the construct.

use crate::ast::{self, Func, Init, Operand, StateSpace, Stmt};
use crate::error::{Pos, PtxError, Result};
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use hw::isa::*;

mod async_copy;
mod bulk;
mod calls;
mod convert;
mod copies;
mod flow;
mod fuse;
mod half;
mod hoist;
mod instr;
mod layout;
mod ldmatrix;
mod mbarrier;
mod memory;
mod named;
mod offsets;
mod pressure;
mod regalloc;
mod select;
mod texture;
mod warp;
mod wmma;

pub use crate::program::{DataReloc, Kernel, Param, Program, Reloc, Segment, Symbol};
use calls::*;
use copies::*;
use flow::cfg;
use layout::*;
pub use layout::{CONST_BANK_BYTES, initial_values};
use regalloc::{VEC_GROUP, uty, wider};

/// Scratch virtual registers after a function's PTX registers: two groups of 4 for vector
/// accesses (a texture access uses both: texel and coordinates), then 10 for immediates,
/// special registers and expansions inside one PTX instruction. They are live ranges like
/// any other: nothing is reserved for them.
const SCRATCH_REGS: u32 = 18;
/// PTX registers a function may declare before `crate::spill` folds them (virtual register
/// numbers are 8 bits: these, the scratch registers and `RZ`).
pub const MAX_REGS: u32 = 255 - SCRATCH_REGS;

/// Compile a parsed module.
pub fn compile(m: &ast::Module) -> Result<Program> {
    compile_with(m, &Options::default())
}

/// The fewest registers a register limit can ask for (ptxas's lower bound for sm_70).
pub const MIN_REG_LIMIT: u32 = 16;

/// What the compiler targets: the SM the code is for and a register limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Registers per thread no function may exceed (ptxas's `-maxrregcount`); a limit
    /// below [`MIN_REG_LIMIT`] counts as that.
    pub max_regs: Option<u32>,
    /// The SM whose register file `.maxntid` and `.minnctapersm` are measured against.
    pub sm: hw::occupancy::SmLimits,
    /// Schedule each function's code for latency before allocating its registers, as
    /// ptxas does (the default: loads issue early, and the registers are about the ones
    /// ptxas allocates); off, the code keeps the PTX's order and takes fewer registers.
    pub schedule: bool,
}

impl Default for Options {
    /// sm_70 (Volta: 64K registers, 2048 threads and 32 blocks per SM), no limit.
    fn default() -> Self {
        let sm = hw::occupancy::SmLimits {
            threads: 2048,
            blocks: 32,
            regs: 65536,
            shared: 96 * 1024,
            rule: hw::occupancy::Rule::VOLTA,
        };
        Self { max_regs: None, sm, schedule: true }
    }
}

impl Options {
    /// The registers function `f` may use: `-maxrregcount`, its `.maxnreg`, and for a
    /// kernel with `.maxntid` the most that still lets `.minnctapersm` (default 1) blocks
    /// of that many threads share an SM, as ptxas derives them.
    pub fn budget(&self, f: &Func) -> u32 {
        let mut b = MAX_GPRS;
        for r in [self.max_regs, f.max_regs].into_iter().flatten() {
            b = b.min(r.max(MIN_REG_LIMIT));
        }
        if let (true, Some(t)) = (f.entry, f.max_threads) {
            let want = f.min_blocks.unwrap_or(1).max(1);
            let fits = |r| hw::occupancy::blocks_per_sm(&self.sm, t, r, 0) >= want;
            if let Some(r) = (MIN_REG_LIMIT..=b).rev().find(|&r| fits(r)) {
                b = r;
            }
        }
        b
    }
}

/// The registers a kernel whose highest register is `units - 1` is allocated, as ptxas
/// reports them and the part allocates them: NVIDIA's ABI keeps R1 as the stack pointer in
/// every kernel (the allocator leaves it free: values take R0 and R2 up), and from Volta
/// on two registers more than the highest one used are allocated. Measured with ptxas 12.9 for sm_70, sm_75, sm_80 and
/// sm_90: an empty kernel (R1 alone) reports 4 registers, a kernel using R0 to R5 reports
/// 8. On Fermi (sm_20) an empty kernel reports 2: R0 and R1.
pub fn abi_regs(units: u32, rule: &hw::occupancy::Rule) -> u32 {
    let top = units.max(2); // R0 and R1 at least
    if rule.fermi { top } else { top + 2 }
}

/// Compile function `f` within `budget` registers: `build` compiles it (into `prog`, from
/// its current end) with its PTX registers first fitted into that many register numbers
/// (spilling the rest, see `crate::spill`) or, with `None`, as they come. When the plain
/// compile is over budget, the roomiest fit within it is searched for (fewer numbers mean
/// more spills) and kept. The relieved body (see `pressure`) is tried over the budget, and
/// for code kept in the PTX's order (`scheduled` off) above [`pressure::PRESSURE_REGS`]:
/// scheduled code holds the values ptxas's code holds, so only a limit calls for less.
fn within_budget(
    prog: &mut Program,
    f: &Func,
    budget: u32,
    scheduled: bool,
    mut build: impl FnMut(&mut Program, Option<usize>, bool) -> Result<(Kernel, Vec<CallFixup>)>,
) -> Result<(Kernel, Vec<CallFixup>)> {
    let start = prog.code.len();
    let rewind = |prog: &mut Program| {
        prog.code.truncate(start);
        prog.lines.truncate(start);
        prog.relocs.retain(|r| (r.at as usize) < start);
    };
    let mut first = build(prog, None, false)?;
    // Under pressure, the relieved body too: the one with fewer registers.
    let mut relieve = false;
    let pressure = if scheduled { budget } else { pressure::PRESSURE_REGS };
    if first.0.regs > pressure {
        rewind(prog);
        match build(prog, None, true) {
            Ok(r) if r.0.regs < first.0.regs => (first, relieve) = (r, true),
            _ => {
                rewind(prog);
                first = build(prog, None, false)?;
            }
        }
    }
    if first.0.regs <= budget {
        return Ok(first);
    }
    // Register numbers to fit into, between one (plus the spill temporaries) and as many
    // as the plain compile used units.
    let (mut lo, mut hi) = (crate::spill::TEMPS + 1, crate::spill::TEMPS + first.0.regs as usize);
    let mut best = None;
    while lo <= hi {
        let mid = (lo + hi) / 2;
        rewind(prog);
        let fits = match build(prog, Some(mid), relieve) {
            Ok((k, _)) => k.regs <= budget,
            Err(_) => false,
        };
        if fits {
            best = Some(mid);
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    rewind(prog);
    match best {
        Some(k) => build(prog, Some(k), relieve),
        None => Err(f.pos.err(format!("`{}` does not fit in {budget} registers", f.name))),
    }
}

/// Compile a parsed module for `opts`.
pub fn compile_with(m: &ast::Module, opts: &Options) -> Result<Program> {
    // Function addresses, indirect calls and branches: made direct first.
    let lowered;
    let m = if crate::indirect::needed(m) {
        lowered = crate::indirect::lower(m)?;
        &lowered
    } else {
        m
    };
    let mut prog = Program {
        code: Vec::new(),
        kernels: Vec::new(),
        symbols: Vec::new(),
        global_size: 0,
        global_init: Vec::new(),
        const_size: 0,
        const_init: Vec::new(),
        relocs: Vec::new(),
        data_relocs: Vec::new(),
        lines: Vec::new(),
        textures: Vec::new(),
        surfaces: Vec::new(),
        samplers: Vec::new(),
    };
    let (places, module_shared) = module_vars(m, &mut prog)?;
    // Non-inlined functions: a static frame each (parameters, return values, locals) in
    // per-thread local memory, and a register range of their own.
    let graph = call_graph(m);
    let order = callees_first(m, &graph)?;
    // The functions some kernel calls, directly or not.
    let called: alloc::collections::BTreeSet<String> =
        m.funcs.iter().filter(|f| f.entry).flat_map(|k| reachable(&graph, k)).collect();
    let mut frames: BTreeMap<String, Frame> = BTreeMap::new();
    let mut local_top = 0u32;
    for f in m.funcs.iter().filter(|f| !f.entry) {
        let mut fr = Frame { base: 0, params: Vec::new(), rets: Vec::new(), pc: 0, defined: f.body.is_some() };
        let mut top = local_top;
        for (list, out) in [(&f.params, &mut fr.params), (&f.rets, &mut fr.rets)] {
            for p in list.iter() {
                let (size, align) = var_size(p)?;
                let (off, end) = place(top, size, align.max(4), p.pos)?;
                top = end;
                out.push((off, size));
            }
        }
        fr.base = local_top;
        local_top = place(top, 0, 8, f.pos)?.1;
        frames.insert(f.name.clone(), fr);
    }
    // Each function's registers sit above those of every function it calls, and a kernel's
    // above those of the functions it calls: a kernel pays for its deepest call chain, not
    // for every function of the module.
    // (general registers, predicate registers) each function occupies with its callees.
    let mut reg_top = BTreeMap::<String, (u32, u32)>::new();
    let above_callees = |f: &Func, reg_top: &BTreeMap<String, (u32, u32)>| {
        let tops = graph.get(f.name.as_str()).into_iter().flatten().filter_map(|c| reg_top.get(c));
        tops.fold((0, 0), |(g, p), &(cg, cp)| (g.max(cg), p.max(cp)))
    };
    let mut call_fixups: Vec<CallFixup> = Vec::new();
    // The functions' shared region: offsets of module-scope variables functions name, its
    // top, and where each function's part of it ends.
    let (mut func_shared, mut func_shared_top) = (BTreeMap::<String, u32>::new(), 0u32);
    let mut func_shared_end = BTreeMap::<String, u32>::new();
    for f in order {
        let Some(body) = &f.body else { continue };
        let named = names_in(body);
        let mut kplaces = BTreeMap::new();
        let fr = &frames[&f.name];
        for (p, &(off, _)) in f.params.iter().zip(&fr.params).chain(f.rets.iter().zip(&fr.rets)) {
            kplaces.insert(p.name.clone(), Place::Local(off));
        }
        // A function's code serves every kernel that calls it, so its shared variables
        // (module-scope ones it names, and its own) sit at the same offsets in all of them:
        // one region at the bottom of shared memory, in function order.
        if let Some(v) = module_shared.iter().find(|v| named.contains(&v.name) && v.count == Some(0)) {
            // A function no kernel reaches needs no code: clang emits every non-static
            // `__device__` function, even one inlined everywhere it is used.
            if !called.contains(&f.name) {
                continue;
            }
            return Err(v.pos.err(format!(
                "dynamic shared memory (`{}`) used in the non-inlined function `{}` is not supported yet",
                v.name, f.name
            )));
        }
        for v in module_shared.iter().filter(|v| named.contains(&v.name) && v.count != Some(0)) {
            if !func_shared.contains_key(&v.name) {
                let (size, align) = var_size(v)?;
                let (off, end) = place(func_shared_top, size, align, v.pos)?;
                func_shared_top = end;
                func_shared.insert(v.name.clone(), off);
            }
            kplaces.insert(v.name.clone(), Place::Shared(func_shared[&v.name]));
        }
        let (info, fixups) = within_budget(&mut prog, f, opts.budget(f), opts.schedule, |prog, fit, relieve| {
            Kc::new(prog, &places, kplaces.clone(), &frames, func_shared_top, false, &[])
                .prepare(true, above_callees(f, &reg_top), local_top, (fit, relieve, opts.schedule))
                .function(f, body)
        })?;
        if let Some(fr) = frames.get_mut(&f.name) {
            fr.pc = info.pc;
        }
        func_shared_top = info.shared_bytes;
        func_shared_end.insert(f.name.clone(), func_shared_top);
        reg_top.insert(f.name.clone(), (info.regs, info.pred_regs));
        local_top = local_top.max(info.local_bytes);
        call_fixups.extend(fixups);
    }
    for f in &m.funcs {
        if !f.entry {
            continue;
        }
        let Some(body) = &f.body else {
            return Err(f.pos.err(format!("kernel `{}` has no body", f.name)));
        };
        // Module-scope shared variables belong to the kernels that name them, above the
        // functions' region when the kernel reaches a function that has shared variables.
        let named = names_in(body);
        let reach = reachable(&graph, f);
        let base = reach.iter().filter_map(|g| func_shared_end.get(g)).copied().max().unwrap_or(0);
        let (mut shared_top, mut dynamic_shared, mut dyn_names) = (base, false, Vec::new());
        let mut kplaces = BTreeMap::new();
        for v in module_shared.iter().filter(|v| named.contains(&v.name)) {
            let (size, align) = var_size(v)?;
            if let Some(&off) = func_shared.get(&v.name) {
                kplaces.insert(v.name.clone(), Place::Shared(off));
                shared_top = shared_top.max(off + size);
            } else if v.count == Some(0) {
                dynamic_shared = true;
                dyn_names.push((v.name.clone(), align));
            } else {
                let (off, end) = place(shared_top, size, align, v.pos)?;
                shared_top = end;
                kplaces.insert(v.name.clone(), Place::Shared(off));
            }
        }
        let (k, fixups) = within_budget(&mut prog, f, opts.budget(f), opts.schedule, |prog, fit, relieve| {
            let (mut k, fixups) =
                Kc::new(prog, &places, kplaces.clone(), &frames, shared_top, dynamic_shared, &dyn_names)
                    .prepare(false, above_callees(f, &reg_top), local_top, (fit, relieve, opts.schedule))
                    .kernel(f, body)?;
            k.regs = abi_regs(k.regs, &opts.sm.rule);
            Ok((k, fixups))
        })?;
        call_fixups.extend(fixups);
        prog.kernels.push(k);
    }
    let defined: alloc::collections::BTreeSet<&str> =
        m.funcs.iter().filter(|f| f.body.is_some()).map(|f| f.name.as_str()).collect();
    for (at, callee, pos) in call_fixups {
        let fr = frames.get(&callee).ok_or_else(|| pos.err(format!("call to unknown function `{callee}`")))?;
        if !defined.contains(callee.as_str()) {
            return Err(pos.err(format!(
                "`{callee}` is declared but not defined in this module (link the module that defines it)"
            )));
        }
        prog.code[at as usize].imm = fr.pc as u64;
    }
    Ok(prog)
}

/// Where a memory operand points: (space, constant bank, base register, offset, whether
/// the offset is relocated), as `Kc::address` gives it.
pub(crate) type MemPlace = (Space, u32, u8, u64, bool);

#[derive(Clone, Copy, Debug)]
enum Src {
    Reg(u8),
    /// An immediate, and whether it is relocated (a global's address).
    Imm(u64, bool),
    /// A constant operand at a byte offset.
    Const(ConstRef, u64),
}

struct Kc<'a> {
    prog: &'a mut Program,
    /// Module-scope symbols (shared by every function: borrowed, never copied).
    module: &'a BTreeMap<String, Place>,
    /// This function's own symbols (parameters, shared, locals), looked up first.
    places: BTreeMap<String, Place>,
    regs: BTreeMap<String, (u8, String)>,
    labels: BTreeMap<String, u32>,
    fixups: Vec<(u32, String, Pos)>,
    shared_top: u32,
    local_top: u32,
    dynamic_shared: bool,
    dyn_shared: Vec<(String, u32)>,
    scratch: u8,
    scratch_vec: u8,
    scratch_end: u8,
    /// Literals held in scratch registers at the top of the range (see `Kc::in_reg`):
    /// (value, relocated, register, statement that last read it).
    lits: Vec<(u64, bool, u8, usize)>,
    guard: Option<(bool, u8)>,
    start: u32,
    pos: Pos,
    frames: &'a BTreeMap<String, Frame>,
    func: bool,
    /// General and predicate registers of the functions this one may call: values live
    /// across a call sit above them.
    reg_base: u32,
    pred_base: u32,
    /// Call sites of the body: (statement index, callee, argument names, return names).
    calls: Vec<CallSite>,
    stmt: usize,
    call_fixups: Vec<CallFixup>,
    /// Registers that are copies of another (see `copies`).
    alias: BTreeMap<String, String>,
    /// Registers read as constant operands or immediates (see `constants`).
    consts: BTreeMap<String, Src>,
    /// Fit the PTX registers into this many register numbers first (a register limit).
    fit: Option<usize>,
    /// Compile the relieved body (`pressure::relieve`).
    relieve: bool,
    /// Schedule the code before allocating its registers (`regalloc::schedule`).
    schedule: bool,
    /// Texture (0) and surface (1) slots the code names.
    handles_used: alloc::collections::BTreeSet<(u8, u32)>,
}

impl<'a> Kc<'a> {
    fn new(
        prog: &'a mut Program,
        module: &'a BTreeMap<String, Place>,
        places: BTreeMap<String, Place>,
        frames: &'a BTreeMap<String, Frame>,
        shared_top: u32,
        dynamic_shared: bool,
        dyn_shared: &[(String, u32)],
    ) -> Self {
        let start = prog.code.len() as u32;
        Self {
            prog,
            module,
            places,
            regs: BTreeMap::new(),
            labels: BTreeMap::new(),
            fixups: Vec::new(),
            shared_top,
            local_top: 0,
            dynamic_shared,
            dyn_shared: dyn_shared.to_vec(),
            scratch: 0,
            scratch_vec: 0,
            scratch_end: 0,
            lits: Vec::new(),
            guard: None,
            start,
            pos: Pos::default(),
            frames,
            func: false,
            reg_base: 0,
            pred_base: 0,
            calls: Vec::new(),
            stmt: 0,
            call_fixups: Vec::new(),
            alias: BTreeMap::new(),
            consts: BTreeMap::new(),
            fit: None,
            relieve: false,
            schedule: false,
            handles_used: alloc::collections::BTreeSet::new(),
        }
    }

    /// A `.func` or a kernel, its registers above its callees' (general, predicate), its
    /// local memory from `local_top`, fitted and relieved as [`within_budget`] asks, and
    /// scheduled unless fitted or asked not to be.
    fn prepare(mut self, func: bool, callees: (u32, u32), local_top: u32, how: (Option<usize>, bool, bool)) -> Self {
        self.func = func;
        (self.reg_base, self.pred_base) = callees;
        self.local_top = local_top;
        (self.fit, self.relieve) = (how.0, how.1);
        self.schedule = how.2 && self.fit.is_none();
        self
    }

    /// Place a variable a function body declares (`.shared`, `extern .shared`, `.local`).
    fn local_var(&mut self, v: &ast::Var) -> Result<()> {
        let (size, align) = var_size(v)?;
        match v.space {
            StateSpace::Shared if v.count == Some(0) => {
                self.dynamic_shared = true;
                self.dyn_shared.push((v.name.clone(), align));
            }
            StateSpace::Shared => {
                let (off, end) = place(self.shared_top, size, align, v.pos)?;
                self.shared_top = end;
                self.places.insert(v.name.clone(), Place::Shared(off));
            }
            StateSpace::Local => {
                let (off, end) = place(self.local_top, size, align, v.pos)?;
                self.local_top = end;
                self.places.insert(v.name.clone(), Place::Local(off));
            }
            StateSpace::Param => {} // a call site's parameter: resolved at its call
            _ => return Err(v.pos.err(format!("`{}` cannot be declared in a function", v.name))),
        }
        Ok(())
    }

    /// The address of variable `n` (not a register) when its place is of the kind `kind`
    /// accepts and needs no relocation: an offset in its window or bank.
    fn fixed_address(&self, n: &str, kind: impl Fn(&Place) -> bool) -> Option<u64> {
        match self.symbol(n) {
            Ok((p, a, false)) if kind(&p) && !self.regs.contains_key(n) => Some(a),
            _ => None,
        }
    }

    fn function(self, f: &Func, body: &[Stmt]) -> Result<(Kernel, Vec<CallFixup>)> {
        self.kernel(f, body)
    }

    fn kernel(mut self, f: &Func, body: &[Stmt]) -> Result<(Kernel, Vec<CallFixup>)> {
        let carried;
        let body = if crate::carry::needed(body) {
            carried = crate::carry::lower(body)?;
            &carried[..]
        } else {
            body
        };
        // The function's own variables have their places first: accesses fold their
        // addresses (`offsets`).
        let mut placed = alloc::collections::BTreeSet::new();
        for s in body {
            if let Stmt::Var(v) = s {
                self.local_var(v)?;
                placed.insert(v.name.clone());
            }
        }
        let shared_at = |n: &str| self.fixed_address(n, |p| matches!(p, Place::Shared(_)));
        let offset = offsets::fold(body, &shared_at);
        let body = offset.as_deref().unwrap_or(body);
        let fused = fuse::mad_wide(body);
        let body = fused.as_deref().unwrap_or(body);
        let recomputed = fuse::recomputed(body);
        let body = recomputed.as_deref().unwrap_or(body);
        // The relieved body keeps registers low (see `pressure`): literals stay in the
        // instructions there; otherwise loop-invariant ones take registers, as in ptxas.
        let relieved;
        let hoisted;
        let body = if self.relieve {
            // A kernel's parameters (a function's are its frame's, which calls rewrite).
            let params = if self.func { Default::default() } else { f.params.iter().map(|p| p.name.clone()).collect() };
            relieved = pressure::relieve(body, &params);
            &relieved[..]
        } else {
            let declared: usize = body.iter().map(|s| if let Stmt::Reg(_, n) = s { n.len() } else { 0 }).sum();
            hoisted = hoist::literals(body, (MAX_REGS as usize).saturating_sub(declared));
            hoisted.as_deref().unwrap_or(body)
        };
        // Kernel parameters live in constant bank 0 (a function's are already in its frame).
        let mut params = Vec::new();
        let mut top = 0u32;
        if !self.func {
            for p in &f.params {
                let (size, align) = var_size(p)?;
                let (off, end) = place(top, size, align, p.pos)?;
                top = end;
                params.push(Param { offset: off, size });
                self.places.insert(p.name.clone(), Place::Param(off));
            }
        }
        self.calls = call_sites(body)?;
        // Registers: one number each, unless there are too many: then registers with
        // disjoint lifetimes share numbers and the excess is spilled (see `spill`).
        let declared: usize = body.iter().map(|s| if let Stmt::Reg(_, n) = s { n.len() } else { 0 }).sum();
        let fitted = match self.fit {
            Some(k) => Some(crate::spill::fit(body, k.min(MAX_REGS as usize))?),
            None if declared > MAX_REGS as usize => Some(crate::spill::fit(body, MAX_REGS as usize)?),
            None => None,
        };
        let body: &[Stmt] = match &fitted {
            Some(ft) => &ft.body,
            None => body,
        };
        // Spilled code keeps its order: the fit counted on it.
        self.schedule &= fitted.is_none();
        let mut nregs = 0u32;
        if let Some(ft) = &fitted {
            for (name, &c) in &ft.colors {
                self.regs.insert(name.clone(), (c, String::new()));
            }
            nregs = ft.used;
        }
        for s in body {
            match s {
                Stmt::Reg(ty, names) if fitted.is_none() => {
                    for n in names {
                        self.regs.insert(n.clone(), (nregs as u8, ty.clone()));
                        nregs += 1;
                    }
                }
                Stmt::Var(v) if !placed.contains(&v.name) => self.local_var(v)?,
                _ => {}
            }
        }
        // Copy propagation lengthens live ranges, so it only runs on uncolored registers.
        if fitted.is_none() {
            self.alias = copies(body, &self.regs);
        }
        // Constant operands only shorten live ranges: fitted or not.
        let kernel_params = if self.func { BTreeMap::new() } else { self.places.clone() };
        let sym = |n: &str| match self.place(n) {
            Some(_) if !self.regs.contains_key(n) => self.symbol(n).ok().map(|(_, a, reloc)| Src::Imm(a, reloc)),
            _ => None,
        };
        let cbank = |n: &str| self.fixed_address(n, |p| matches!(p, Place::Const(_)));
        self.consts = constants(body, &self.alias, &kernel_params, &sym, &cbank);
        self.scratch_vec = nregs as u8;
        self.scratch_end = (nregs + SCRATCH_REGS) as u8;
        // Vector loads' results read where they were loaded (see `memory::in_group`).
        if fitted.is_none() {
            let defs = definitions(body);
            let alias = &self.alias;
            let copied = |n: &str| alias.contains_key(n) || alias.values().any(|a| a == n);
            for (n, k) in memory::in_group(body, &defs, &copied) {
                if let Some(r) = self.regs.get_mut(&n) {
                    r.0 = self.scratch_vec + k;
                }
            }
        }
        // Dynamic shared memory starts after all static shared memory.
        let mut dyn_base = self.shared_top;
        for &(_, a) in &self.dyn_shared {
            dyn_base = place(dyn_base, 0, a.max(16), f.pos)?.0;
        }
        for (name, _) in core::mem::take(&mut self.dyn_shared) {
            self.places.insert(name, Place::Shared(dyn_base));
        }
        // Code.
        for (k, s) in body.iter().enumerate() {
            self.stmt = k;
            match s {
                Stmt::Label(l, pos) if self.labels.insert(l.clone(), self.here()).is_some() => {
                    return Err(pos.err(format!("label `{l}` defined twice")));
                }
                Stmt::Label(..) => self.lits.clear(),
                Stmt::Instr(i) if is_alias_copy(i, &self.alias) || self.is_constant_def(i) => {}
                Stmt::Instr(i) => {
                    self.pos = i.pos;
                    self.scratch = self.scratch_vec + 2 * VEC_GROUP as u8;
                    self.guard = match &i.guard {
                        Some((neg, r)) => Some((*neg, self.reg(r)?)),
                        None => None,
                    };
                    self.instr(i)?;
                }
                _ => {}
            }
        }
        let exit = self.here();
        self.labels.insert("\u{0}exit".into(), exit);
        self.guard = None;
        self.push(Instr::new(if self.func { Op::Ret } else { Op::Exit }, Ty::U32));
        self.resolve(exit)?;
        let Some(alloc) = self.allocate(nregs) else {
            return Err(f.pos.err(format!(
                "`{}` needs more than {MAX_GPRS} registers with the functions it may call (spilling applies only to PTX declaring more than {MAX_REGS})",
                f.name
            )));
        };
        let fixups = core::mem::take(&mut self.call_fixups);
        let k = Kernel {
            name: f.name.clone(),
            pc: self.start,
            params,
            param_bytes: top,
            regs: alloc.gprs,
            pred_regs: alloc.preds,
            shared_bytes: self.shared_top,
            local_bytes: self.local_top,
            dynamic_shared: self.dynamic_shared,
            max_threads: f.max_threads,
            cluster: f.cluster,
            explicit_cluster: f.explicit_cluster,
            spill: fitted.as_ref().map_or((0, 0), |ft| (ft.spill_stores, ft.spill_loads)),
            textures: self.handles_used.iter().filter(|h| h.0 == 0).count() as u32,
            surfaces: self.handles_used.iter().filter(|h| h.0 == 1).count() as u32,
        };
        Ok((k, fixups))
    }
}

/// Parse and compile PTX text.
pub fn compile_ptx(src: &str) -> Result<Program> {
    compile_ptx_with(src, &Options::default())
}

/// Parse and compile PTX text for `opts`.
pub fn compile_ptx_with(src: &str, opts: &Options) -> Result<Program> {
    let m = crate::parse(src)?;
    compile_with(&m, opts)
}

#[cfg(test)]
mod tests;
