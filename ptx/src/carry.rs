//! Carry chains (`add.cc`, `addc`, `sub.cc`, `subc`, `mad.cc`, `madc`): PTX's condition
//! code register CC.CF, which these instructions set and read, becomes a hidden `.b64`
//! register holding 0 or 1, and each instruction becomes plain PTX over it before
//! compilation. A 32-bit operation is carried out on the operands zero-extended to 64 bits,
//! where the carry (or the borrow, as the sign) is bit 32 (63) of the result; a 64-bit one
//! compares the result with an operand (a sum below an addend carried; a minuend below
//! the subtrahend borrowed). Nothing is written to the destination before the operands are
//! read, so it may be one of them. Compilers write these chains for 128-bit and
//! multi-word integer arithmetic (clang's `__int128`, nvcc's `__umul64hi` friends, bignums).

use crate::ast::{Instr, Operand, Stmt};
use crate::error::{PtxError, Result};

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

const CF: &str = "%__rgdev_cf";
const T: [&str; 4] = ["%__rgdev_c0", "%__rgdev_c1", "%__rgdev_c2", "%__rgdev_c3"];
const P: &str = "%__rgdev_cp";

fn is_carry(i: &Instr) -> bool {
    match i.op.as_str() {
        "addc" | "subc" | "madc" => true,
        "add" | "sub" | "mad" => i.has("cc"),
        _ => false,
    }
}

/// Whether `body` has a carry instruction.
pub fn needed(body: &[Stmt]) -> bool {
    body.iter().any(|s| matches!(s, Stmt::Instr(i) if is_carry(i)))
}

fn name(s: &str) -> Operand {
    Operand::Name(s.to_string())
}

/// `body` with its carry instructions rewritten (and the registers they use declared).
pub fn lower(body: &[Stmt]) -> Result<Vec<Stmt>> {
    let mut out = Vec::with_capacity(body.len() + 16);
    out.push(Stmt::Reg("b64".into(), [CF].iter().chain(T.iter()).map(|s| s.to_string()).collect()));
    out.push(Stmt::Reg("pred".into(), vec![P.to_string()]));
    for s in body {
        match s {
            Stmt::Instr(i) if is_carry(i) => lower_one(i, &mut out)?,
            _ => out.push(s.clone()),
        }
    }
    Ok(out)
}

fn lower_one(i: &Instr, out: &mut Vec<Stmt>) -> Result<()> {
    let err = |m: String| -> PtxError { i.pos.err(m) };
    let ty =
        i.mods.iter().find(|m| matches!(m.as_str(), "u32" | "s32" | "u64" | "s64")).cloned().ok_or_else(|| {
            err(format!("`{}.{}`: carry chains take .u32, .s32, .u64 or .s64", i.op, i.mods.join(".")))
        })?;
    let wide = ty.ends_with("64");
    let (op, cin) = match i.op.as_str() {
        "addc" => ("add", true),
        "subc" => ("sub", true),
        "madc" => ("mad", true),
        o => (o, false),
    };
    let cout = i.has("cc");
    let nargs = if op == "mad" { 4 } else { 3 };
    if i.args.len() != nargs {
        return Err(err(format!("`{}` needs {nargs} operands", i.op)));
    }
    let mut emit = |op: &str, mods: &[&str], args: Vec<Operand>| {
        out.push(Stmt::Instr(Instr {
            pos: i.pos,
            guard: i.guard.clone(),
            op: op.into(),
            mods: mods.iter().map(|m| m.to_string()).collect(),
            args,
        }))
    };
    let (d, a) = (i.args[0].clone(), i.args[1].clone());
    // The addends: a product (`mad`: lo or hi of a * b, into T[2]) and c, or a and b.
    let (x, y) = if op == "mad" {
        let half = if i.has("hi") { "hi" } else { "lo" };
        emit("mul", &[half, &ty], vec![name(T[2]), a.clone(), i.args[2].clone()]);
        (name(T[2]), i.args[3].clone())
    } else {
        (a, i.args[2].clone())
    };
    let arith = if op == "sub" { "sub" } else { "add" };
    if !wide {
        emit("cvt", &["u64", "u32"], vec![name(T[0]), x]);
        emit("cvt", &["u64", "u32"], vec![name(T[1]), y]);
        emit(arith, &["u64"], vec![name(T[0]), name(T[0]), name(T[1])]);
        if cin {
            emit(arith, &["u64"], vec![name(T[0]), name(T[0]), name(CF)]);
        }
        if cout {
            // A carry is bit 32 of the sum; a borrow makes the difference negative.
            let bit = if op == "sub" { 63 } else { 32 };
            emit("shr", &["u64"], vec![name(CF), name(T[0]), Operand::Int(bit)]);
            if op == "sub" {
                emit("and", &["b64"], vec![name(CF), name(CF), Operand::Int(1)]);
            }
        }
        emit("cvt", &["u32", "u64"], vec![d, name(T[0])]);
        return Ok(());
    }
    // 64 bits: T0 = x op y, T1 = its carry (or borrow); then the carry in.
    emit(arith, &["u64"], vec![name(T[0]), x.clone(), y.clone()]);
    if cout {
        let (l, r) = if op == "sub" { (x, y) } else { (name(T[0]), x) };
        emit("setp", &["lt", "u64"], vec![name(P), l, r]);
        emit("selp", &["u64"], vec![name(T[1]), Operand::Int(1), Operand::Int(0), name(P)]);
    }
    if cin {
        emit(arith, &["u64"], vec![name(T[2]), name(T[0]), name(CF)]);
        if cout {
            let (l, r) = if op == "sub" { (name(T[0]), name(CF)) } else { (name(T[2]), name(T[0])) };
            emit("setp", &["lt", "u64"], vec![name(P), l, r]);
            emit("selp", &["u64"], vec![name(T[3]), Operand::Int(1), Operand::Int(0), name(P)]);
            emit("or", &["b64"], vec![name(T[1]), name(T[1]), name(T[3])]);
        }
        emit("mov", &["b64"], vec![name(T[0]), name(T[2])]);
    }
    if cout {
        emit("mov", &["b64"], vec![name(CF), name(T[1])]);
    }
    emit("mov", &["b64"], vec![d, name(T[0])]);
    Ok(())
}
