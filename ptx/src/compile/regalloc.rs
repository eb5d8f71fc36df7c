//! Register allocation: each PTX register's live interval over the control-flow graph,
//! then a linear scan onto device registers (spilling lives in `crate::spill`).

use super::*;

/// Registers an instruction reads and writes (fields, vectors expanded; RZ and
/// immediate slots left out). A guarded write also reads (the old value may survive).
pub(crate) fn uses_defs(i: &Instr) -> (Vec<u8>, Vec<u8>) {
    let w = i.w0;
    let op = w.op();
    let imm = w.imm();
    let vec = if matches!(op, Op::Ld | Op::St) { MemMods::vec(w.m()) as u8 } else { 1 };
    let mut uses = Vec::new();
    let mut defs = Vec::new();
    let add = |v: &mut Vec<u8>, r: u8, n: u8| {
        if r != RZ {
            for k in 0..n {
                v.push(r.saturating_add(k));
            }
        }
    };
    add(&mut uses, w.guard(), 1);
    if imm != Imm::A {
        add(&mut uses, w.a(), 1);
    }
    if imm != Imm::B {
        add(&mut uses, w.b(), if op == Op::St { vec } else { 1 });
    }
    if imm != Imm::C {
        add(&mut uses, w.c(), 1);
    }
    if op != Op::St {
        add(&mut defs, w.dst(), if op == Op::Ld { vec } else { 1 });
        if w.guard() != ALWAYS {
            add(&mut uses, w.dst(), if op == Op::Ld { vec } else { 1 });
        }
    }
    (uses, defs)
}

pub(crate) fn uty(bits: u32) -> Ty {
    match bits {
        8 => Ty::U8,
        16 => Ty::U16,
        32 => Ty::U32,
        _ => Ty::U64,
    }
}

impl Kc<'_> {
    /// Linear-scan register allocation of the kernel's PTX registers (virtual registers
    /// `0..nregs`; scratch registers above them follow the allocated ones). Liveness is a
    /// dataflow over the basic blocks; each register gets one interval covering every
    /// point where it is live. Returns how many registers the PTX values occupy.
    pub(crate) fn allocate(&mut self, nregs: u32) -> u32 {
        let n = nregs as usize;
        let start = self.start as usize;
        let code: Vec<Instr> = self.prog.code[start..].to_vec();
        let (starts, succ) = cfg(&code, start);
        let nb = starts.len();
        let words = n.div_ceil(64);
        let set = |v: &mut Vec<u64>, r: usize| v[r / 64] |= 1 << (r % 64);
        let has = |v: &Vec<u64>, r: usize| v[r / 64] >> (r % 64) & 1 == 1;
        let end_of = |b: usize| if b + 1 < nb { starts[b + 1] } else { code.len() };
        let mut used_first = vec![vec![0u64; words]; nb];
        let mut kill = vec![vec![0u64; words]; nb];
        for b in 0..nb {
            for i in &code[starts[b]..end_of(b)] {
                let (u, d) = uses_defs(i);
                for r in u.into_iter().map(|r| r as usize).filter(|&r| r < n) {
                    if !has(&kill[b], r) {
                        set(&mut used_first[b], r);
                    }
                }
                for r in d.into_iter().map(|r| r as usize).filter(|&r| r < n) {
                    set(&mut kill[b], r);
                }
            }
        }
        let mut live_in = vec![vec![0u64; words]; nb];
        let mut live_out = vec![vec![0u64; words]; nb];
        let mut changed = true;
        while changed {
            changed = false;
            for b in (0..nb).rev() {
                let mut out = vec![0u64; words];
                for &s in succ[b].iter().filter(|&&s| s < nb) {
                    for w in 0..words {
                        out[w] |= live_in[s][w];
                    }
                }
                let inn: Vec<u64> = (0..words).map(|w| used_first[b][w] | (out[w] & !kill[b][w])).collect();
                if inn != live_in[b] || out != live_out[b] {
                    live_in[b] = inn;
                    live_out[b] = out;
                    changed = true;
                }
            }
        }
        // Intervals in instruction positions.
        let mut iv: Vec<Option<(usize, usize)>> = vec![None; n];
        let mut touch = |r: usize, p: usize| {
            iv[r] = Some(match iv[r] {
                None => (p, p),
                Some((a, z)) => (a.min(p), z.max(p)),
            });
        };
        for b in 0..nb {
            for r in 0..n {
                if has(&live_in[b], r) {
                    touch(r, starts[b]);
                }
                if has(&live_out[b], r) {
                    touch(r, end_of(b) - 1);
                }
            }
            for (k, i) in code[starts[b]..end_of(b)].iter().enumerate() {
                let (u, d) = uses_defs(i);
                for r in u.into_iter().chain(d).map(|r| r as usize).filter(|&r| r < n) {
                    touch(r, starts[b] + k);
                }
            }
        }
        let mut order: Vec<usize> = (0..n).filter(|&r| iv[r].is_some()).collect();
        order.sort_by_key(|&r| iv[r].map(|x| x.0));
        let mut map = vec![RZ; n];
        let mut free: Vec<u8> = (0..nregs as u8).rev().collect();
        let mut active: Vec<(usize, u8)> = Vec::new();
        let mut used = 0u32;
        for r in order {
            let (a, z) = iv[r].unwrap_or((0, 0));
            active.retain(|&(end, p)| {
                if end < a {
                    free.push(p);
                    false
                } else {
                    true
                }
            });
            free.sort_unstable_by(|x, y| y.cmp(x));
            let p = free.pop().unwrap_or(0);
            used = used.max(p as u32 + 1);
            map[r] = p;
            active.push((z, p));
        }
        let base = self.reg_base;
        let remap = |r: u8| -> u8 {
            if r == RZ {
                RZ
            } else if (r as u32) < nregs {
                (SCRATCH_REGS + base + map[r as usize] as u32).min(254) as u8
            } else {
                // Scratch is dead between instructions, so every function shares it.
                (r as u32 - nregs).min(254) as u8
            }
        };
        for i in &mut self.prog.code[start..] {
            let w = &mut i.w0;
            let (g, d, a, b, c) = (w.guard(), w.dst(), w.a(), w.b(), w.c());
            w.set_guard(remap(g));
            w.set_dst(remap(d));
            w.set_a(remap(a));
            w.set_b(remap(b));
            w.set_c(remap(c));
        }
        used
    }
}

pub(crate) fn wider(t: Ty) -> Ty {
    match t {
        Ty::U16 => Ty::U32,
        Ty::S16 => Ty::S32,
        Ty::U32 => Ty::U64,
        Ty::S32 => Ty::S64,
        t => t,
    }
}
