//! PTX tokens. Dotted names (`ld.global.u32`, `%tid.x`, `.reg`) are single tokens; the
//! parser splits opcodes at the dots. `0f`/`0d` literals are float bit patterns.

use crate::error::{Pos, Result};
use alloc::string::String;
use alloc::vec::Vec;

/// A token.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// A name, directive, register or opcode (may contain dots).
    Ident(String),
    /// An integer literal.
    Int(u64),
    /// A decimal float literal (`1.5`).
    Float(f64),
    /// `0fXXXXXXXX`: single-precision bits.
    F32Bits(u32),
    /// `0dXXXXXXXXXXXXXXXX`: double-precision bits.
    F64Bits(u64),
    /// A string literal.
    Str(String),
    /// Punctuation.
    Punct(char),
}

/// A token with its position.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// Where it starts.
    pub pos: Pos,
}

fn ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || matches!(c, b'_' | b'$' | b'%' | b'.')
}

fn ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.')
}

/// Split `src` into tokens.
pub fn lex(src: &str) -> Result<Vec<Token>> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line, mut col) = (0usize, 1u32, 1u32);
    let adv = |i: &mut usize, line: &mut u32, col: &mut u32, n: usize| {
        for k in 0..n {
            if b[*i + k] == b'\n' {
                *line += 1;
                *col = 1;
            } else {
                *col += 1;
            }
        }
        *i += n;
    };
    while i < b.len() {
        let c = b[i];
        let pos = Pos { line, col };
        if c.is_ascii_whitespace() {
            adv(&mut i, &mut line, &mut col, 1);
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            let n = b[i..].iter().position(|&x| x == b'\n').unwrap_or(b.len() - i);
            adv(&mut i, &mut line, &mut col, n);
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let n = src[i + 2..].find("*/").ok_or_else(|| pos.err("unterminated comment"))?;
            adv(&mut i, &mut line, &mut col, n + 4);
            continue;
        }
        if c == b'"' {
            let n = src[i + 1..].find('"').ok_or_else(|| pos.err("unterminated string"))?;
            out.push(Token { tok: Tok::Str(src[i + 1..i + 1 + n].into()), pos });
            adv(&mut i, &mut line, &mut col, n + 2);
            continue;
        }
        if ident_start(c) {
            let mut n = 1 + b[i + 1..].iter().position(|&x| !ident_char(x)).unwrap_or(b.len() - i - 1);
            // A qualified modifier: `.shared::cta`, `.L2::128B` stay in the identifier.
            while b[i + n..].starts_with(b"::") && b.get(i + n + 2).is_some_and(|x| x.is_ascii_alphanumeric()) {
                n += 2 + b[i + n + 2..].iter().position(|&x| !ident_char(x)).unwrap_or(b.len() - i - n - 2);
            }
            out.push(Token { tok: Tok::Ident(src[i..i + n].into()), pos });
            adv(&mut i, &mut line, &mut col, n);
            continue;
        }
        if c.is_ascii_digit() {
            let n = b[i..].iter().position(|&x| !(x.is_ascii_alphanumeric() || x == b'.')).unwrap_or(b.len() - i);
            let text = &src[i..i + n];
            out.push(Token { tok: number(text).ok_or_else(|| pos.err(alloc::format!("bad number `{text}`")))?, pos });
            adv(&mut i, &mut line, &mut col, n);
            continue;
        }
        if b",;:{}[]()+-@!<>=|".contains(&c) {
            out.push(Token { tok: Tok::Punct(c as char), pos });
            adv(&mut i, &mut line, &mut col, 1);
            continue;
        }
        return Err(pos.err(alloc::format!("unexpected character `{}`", c as char)));
    }
    Ok(out)
}

fn number(t: &str) -> Option<Tok> {
    let lower = t.to_ascii_lowercase();
    let l = lower.strip_suffix('u').unwrap_or(&lower);
    if let Some(h) = l.strip_prefix("0f") {
        return (h.len() == 8).then(|| u32::from_str_radix(h, 16).ok().map(Tok::F32Bits)).flatten();
    }
    if let Some(h) = l.strip_prefix("0d") {
        return (h.len() == 16).then(|| u64::from_str_radix(h, 16).ok().map(Tok::F64Bits)).flatten();
    }
    if let Some(h) = l.strip_prefix("0x") {
        return u64::from_str_radix(h, 16).ok().map(Tok::Int);
    }
    if l.contains('.') || l.contains('e') {
        return l.parse::<f64>().ok().map(Tok::Float);
    }
    if l.len() > 1 && l.starts_with('0') && l.bytes().all(|c| (b'0'..=b'7').contains(&c)) {
        return u64::from_str_radix(&l[1..], 8).ok().map(Tok::Int);
    }
    l.parse::<u64>().ok().map(Tok::Int)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens() {
        let t = lex("@!%p1 ld.global.v2.f32 {%f1, %f2}, [%rd3+-8]; // c\n 0f3F800000 0x10 017 1.5").unwrap();
        let toks: Vec<Tok> = t.iter().map(|t| t.tok.clone()).collect();
        assert_eq!(toks[0], Tok::Punct('@'));
        assert_eq!(toks[1], Tok::Punct('!'));
        assert_eq!(toks[2], Tok::Ident("%p1".into()));
        assert_eq!(toks[3], Tok::Ident("ld.global.v2.f32".into()));
        assert!(toks.contains(&Tok::F32Bits(0x3F80_0000)));
        assert!(toks.contains(&Tok::Int(16)));
        assert!(toks.contains(&Tok::Int(15)));
        assert!(toks.contains(&Tok::Float(1.5)));
        assert_eq!(t.last().unwrap().pos.line, 2);
    }

    #[test]
    fn errors_have_positions() {
        let e = lex("mov.u32 %r1,\n  #").unwrap_err();
        assert_eq!((e.line, e.col), (2, 3));
        assert!(lex("/* never closed").is_err());
        assert!(lex("0fZZ").is_err());
    }
}
