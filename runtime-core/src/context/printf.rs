//! Device `printf` and `assert`, the driver's half ([`hw::printf`]): a context whose
//! modules call `vprintf` or `__assertfail` gets a FIFO in DMA memory mapped into its
//! address space (CU_LIMIT_PRINTF_FIFO_SIZE bytes, 1 MiB unless changed before), named
//! by every launch; at synchronization points the runtime takes the records and renders
//! them as C's `printf` would (`printf` output for the program's standard output, failed
//! assertions as CUDA words them for standard error).

use crate::channel::{Held, map_dma};
use crate::device::Device;
use crate::error::Result;
pub use crate::platform::DeviceOutput as Output;
use crate::platform::{DmaBuffer, Platform};
use crate::vm::VaSpace;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;
use core::sync::atomic::Ordering;
use hw::printf::{ArgTag, HEADER, KIND_ASSERT, KIND_PRINTF, Length, Spec, pad8, spec};

/// A context's printf FIFO.
pub(crate) struct PrintfArea {
    buf: DmaBuffer,
    pub(crate) va: u64,
}

impl PrintfArea {
    /// A FIFO of `bytes` bytes of records, mapped into `vm`.
    pub(crate) fn new<P: Platform>(
        gpu: &Device<P>,
        vm: &mut VaSpace,
        held: &mut Vec<Held>,
        bytes: u32,
    ) -> Result<Self> {
        let (buf, va) = map_dma(gpu, vm, held, HEADER + bytes as usize)?;
        let _ = buf.mem.store_u32(4, bytes, Ordering::Release);
        Ok(Self { buf, va })
    }

    /// The records written since the last call (whole records, as bytes) and how many
    /// were dropped; the FIFO starts empty again. Call with the context's work done.
    pub(crate) fn take(&self) -> (Vec<u8>, u32) {
        let used = self.buf.mem.load_u32(0, Ordering::Acquire).unwrap_or(0) as usize;
        let dropped = self.buf.mem.load_u32(8, Ordering::Acquire).unwrap_or(0);
        let mut out = alloc::vec![0u8; used.min(self.buf.len().saturating_sub(HEADER))];
        let _ = self.buf.mem.read(HEADER, &mut out);
        let _ = self.buf.mem.store_u32(8, 0, Ordering::Relaxed);
        let _ = self.buf.mem.store_u32(0, 0, Ordering::Release);
        (out, dropped)
    }
}

/// A reader over a record's bytes.
struct Rd<'a>(&'a [u8], usize);

impl<'a> Rd<'a> {
    fn u32(&mut self) -> Option<u32> {
        let v = u32::from_le_bytes(self.0.get(self.1..self.1 + 4)?.try_into().ok()?);
        self.1 += 4;
        Some(v)
    }
    fn u64(&mut self) -> Option<u64> {
        let v = u64::from_le_bytes(self.0.get(self.1..self.1 + 8)?.try_into().ok()?);
        self.1 += 8;
        Some(v)
    }
    fn string(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        self.u32()?;
        let s = self.0.get(self.1..self.1.checked_add(n)?)?;
        self.1 = pad8(self.1 + n);
        Some(s)
    }
}

/// One argument of a printf record.
#[derive(Clone, Copy, Debug)]
enum Arg<'a> {
    Int(u64, bool),
    Double(f64),
    Str(Option<&'a [u8]>),
    Ptr(u64),
}

/// Render the records `bytes` (as the FIFO holds them after its header) in order; a malformed
/// record ends the rendering. `dropped` records are reported once.
pub fn render(bytes: &[u8], dropped: u32) -> Vec<(Output, Vec<u8>)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at + 8 <= bytes.len() {
        let len = u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]) as usize;
        if len < 8 || at + len > bytes.len() {
            break;
        }
        let rec = &bytes[at..at + len];
        at += len;
        let kind = u16::from_le_bytes([rec[4], rec[5]]);
        let count = u16::from_le_bytes([rec[6], rec[7]]) as usize;
        let mut r = Rd(rec, 8);
        let rendered = match kind {
            KIND_PRINTF => printf_record(&mut r, count).map(|t| (Output::Stdout, t)),
            KIND_ASSERT => assert_record(&mut r).map(|t| (Output::Stderr, t)),
            _ => None,
        };
        match rendered {
            Some(x) => out.push(x),
            None => break,
        }
    }
    if dropped > 0 {
        let mut s = String::new();
        let _ = writeln!(s, "rgdev: {dropped} device printf records did not fit the FIFO (cudaLimitPrintfFifoSize)");
        out.push((Output::Stderr, s.into_bytes()));
    }
    out
}

fn assert_record(r: &mut Rd) -> Option<Vec<u8>> {
    let mut v = [0u32; 8];
    for x in &mut v {
        *x = r.u32()?;
    }
    let (msg, file, func) = (r.string()?, r.string()?, r.string()?);
    let mut s = String::new();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let _ = writeln!(
        s,
        "{}:{}: {}: block: [{},{},{}], thread: [{},{},{}] Assertion `{}` failed.",
        text(file),
        v[6],
        text(func),
        v[0],
        v[1],
        v[2],
        v[3],
        v[4],
        v[5],
        text(msg)
    );
    Some(s.into_bytes())
}

fn printf_record(r: &mut Rd, count: usize) -> Option<Vec<u8>> {
    let fmt = r.string()?;
    let mut args = Vec::with_capacity(count);
    for _ in 0..count {
        let tag = ArgTag::from_u32(r.u32()?)?;
        r.u32()?;
        args.push(match tag {
            ArgTag::Int32 => Arg::Int(r.u64()?, false),
            ArgTag::Int64 => Arg::Int(r.u64()?, true),
            ArgTag::Double => Arg::Double(f64::from_bits(r.u64()?)),
            ArgTag::Str => Arg::Str(Some(r.string()?)),
            ArgTag::NullStr => {
                r.u64()?;
                Arg::Str(None)
            }
            ArgTag::Ptr => Arg::Ptr(r.u64()?),
        });
    }
    Some(format(fmt, &args))
}

/// `fmt` with `args` substituted as C's printf does.
fn format(fmt: &[u8], args: &[Arg]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut next = args.iter();
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            out.push(fmt[i]);
            i += 1;
            continue;
        }
        let Some(s) = spec(&fmt[i..]) else {
            out.push(b'%');
            i += 1;
            continue;
        };
        let text = &fmt[i..i + s.len];
        i += s.len;
        if s.conv == b'%' {
            out.push(b'%');
            continue;
        }
        if s.arg().is_none() {
            out.extend_from_slice(text); // unsupported: printed as written
            continue;
        }
        match next.next() {
            Some(a) => conversion(&mut out, &s, *a),
            None => out.extend_from_slice(text),
        }
    }
    out
}

/// Pad `body` (after `prefix`: sign or 0x) to the field width.
fn field(out: &mut Vec<u8>, s: &Spec, prefix: &str, body: &[u8], zero_ok: bool) {
    let width = s.width.unwrap_or(0) as usize;
    let n = prefix.len() + body.len();
    let pad = width.saturating_sub(n);
    if s.flags.minus {
        out.extend_from_slice(prefix.as_bytes());
        out.extend_from_slice(body);
        out.resize(out.len() + pad, b' ');
    } else if s.flags.zero && zero_ok {
        out.extend_from_slice(prefix.as_bytes());
        out.resize(out.len() + pad, b'0');
        out.extend_from_slice(body);
    } else {
        out.resize(out.len() + pad, b' ');
        out.extend_from_slice(prefix.as_bytes());
        out.extend_from_slice(body);
    }
}

fn conversion(out: &mut Vec<u8>, s: &Spec, a: Arg) {
    match (s.conv, a) {
        (b'd' | b'i', Arg::Int(v, wide)) => {
            let v: i64 = match (wide, s.length) {
                (true, _) => v as i64,
                (false, Length::Char) => v as u8 as i8 as i64,
                (false, Length::Short) => v as u16 as i16 as i64,
                (false, _) => v as u32 as i32 as i64,
            };
            let sign = if v < 0 {
                "-"
            } else if s.flags.plus {
                "+"
            } else if s.flags.space {
                " "
            } else {
                ""
            };
            let digits = int_digits(v.unsigned_abs(), 10, false, s.precision);
            field(out, s, sign, digits.as_bytes(), s.precision.is_none());
        }
        (b'u' | b'x' | b'X' | b'o', Arg::Int(v, wide)) => {
            let v: u64 = match (wide, s.length) {
                (true, _) => v,
                (false, Length::Char) => v as u8 as u64,
                (false, Length::Short) => v as u16 as u64,
                (false, _) => v as u32 as u64,
            };
            let (base, upper) = match s.conv {
                b'x' => (16, false),
                b'X' => (16, true),
                b'o' => (8, false),
                _ => (10, false),
            };
            let mut digits = int_digits(v, base, upper, s.precision);
            let prefix = match s.conv {
                b'x' if s.flags.hash && v != 0 => "0x",
                b'X' if s.flags.hash && v != 0 => "0X",
                _ => "",
            };
            if s.conv == b'o' && s.flags.hash && !digits.starts_with('0') {
                digits.insert(0, '0');
            }
            field(out, s, prefix, digits.as_bytes(), s.precision.is_none());
        }
        (b'c', Arg::Int(v, _)) => field(out, s, "", &[v as u8], false),
        (b's', Arg::Str(text)) => {
            let text = text.unwrap_or(b"(null)");
            let n = s.precision.map_or(text.len(), |p| (p as usize).min(text.len()));
            field(out, s, "", &text[..n], false);
        }
        (b'p', Arg::Ptr(p)) => {
            if p == 0 {
                field(out, s, "", b"(nil)", false);
            } else {
                let digits = int_digits(p, 16, false, None);
                field(out, s, "0x", digits.as_bytes(), false);
            }
        }
        (c, Arg::Double(v)) => float(out, s, c, v),
        _ => {}
    }
}

/// The digits of `v` in `base`, at least `precision` of them (C: precision 0 and value 0
/// print nothing).
fn int_digits(mut v: u64, base: u64, upper: bool, precision: Option<u32>) -> String {
    let table: &[u8] = if upper { b"0123456789ABCDEF" } else { b"0123456789abcdef" };
    let mut buf = Vec::new();
    while v > 0 {
        buf.push(table[(v % base) as usize]);
        v /= base;
    }
    let min = precision.unwrap_or(1) as usize;
    while buf.len() < min {
        buf.push(b'0');
    }
    buf.reverse();
    String::from_utf8(buf).unwrap_or_default()
}

/// `%f %e %g %a` (and upper case) of `v`.
fn float(out: &mut Vec<u8>, s: &Spec, conv: u8, v: f64) {
    let upper = conv.is_ascii_uppercase();
    let sign = if v.is_sign_negative() {
        "-"
    } else if s.flags.plus {
        "+"
    } else if s.flags.space {
        " "
    } else {
        ""
    };
    let a = v.abs();
    if !a.is_finite() {
        let t = match (a.is_nan(), upper) {
            (true, false) => "nan",
            (true, true) => "NAN",
            (false, false) => "inf",
            (false, true) => "INF",
        };
        field(out, s, sign, t.as_bytes(), false);
        return;
    }
    let p = s.precision.unwrap_or(6) as usize;
    let mut body = match conv.to_ascii_lowercase() {
        b'f' => fixed(a, p, s.flags.hash),
        b'e' => exponent(a, p, s.flags.hash),
        b'g' => general(a, p, s.flags.hash),
        _ => hex_float(a, s.precision),
    };
    if upper {
        body.make_ascii_uppercase();
    }
    field(out, s, sign, body.as_bytes(), true);
}

fn fixed(a: f64, p: usize, hash: bool) -> String {
    let mut t = String::new();
    let _ = write!(t, "{a:.p$}");
    if p == 0 && hash {
        t.push('.');
    }
    t
}

fn exponent(a: f64, p: usize, hash: bool) -> String {
    let mut r = String::new();
    let _ = write!(r, "{a:.p$e}"); // Rust: 1.5e2, 1.5e-7
    let (mant, exp) = r.split_once('e').unwrap_or((&r, "0"));
    let e: i32 = exp.parse().unwrap_or(0);
    let mut t = String::from(mant);
    if p == 0 && hash {
        t.push('.');
    }
    let _ = write!(t, "e{}{:02}", if e < 0 { '-' } else { '+' }, e.unsigned_abs());
    t
}

fn general(a: f64, p: usize, hash: bool) -> String {
    let p = p.max(1);
    // The exponent the value has once rounded to p significant digits.
    let e_form = exponent(a, p - 1, false);
    let x: i32 = e_form.split_once('e').and_then(|(_, e)| e.parse().ok()).unwrap_or(0);
    let mut t =
        if (p as i32) > x && x >= -4 { fixed(a, (p as i32 - 1 - x) as usize, hash) } else { exponent(a, p - 1, hash) };
    if !hash {
        // Trailing zeros of the fraction (and a bare point) go.
        let (m, e) = match t.find('e') {
            Some(k) => (String::from(&t[..k]), String::from(&t[k..])),
            None => (t.clone(), String::new()),
        };
        let m = if m.contains('.') { String::from(m.trim_end_matches('0').trim_end_matches('.')) } else { m };
        t = m + &e;
    }
    t
}

fn hex_float(a: f64, precision: Option<u32>) -> String {
    let bits = a.to_bits();
    let (mut e, mut m) = (((bits >> 52) & 0x7ff) as i64, bits & ((1 << 52) - 1));
    let lead = if e == 0 {
        if m == 0 {
            e = 0;
            0
        } else {
            e = -1022;
            0
        }
    } else {
        e -= 1023;
        1
    };
    let mut digits = String::new();
    for k in (0..13).rev() {
        let _ = write!(digits, "{:x}", (m >> (4 * k)) & 0xf);
    }
    match precision {
        Some(p) if (p as usize) < 13 => {
            // Round to p hex digits, half to even.
            let drop = 4 * (13 - p as u64);
            let half = 1u64 << (drop - 1);
            let rest = m & ((1 << drop) - 1);
            let mut kept = m >> drop;
            if rest > half || (rest == half && kept & 1 == 1) {
                kept += 1;
            }
            m = kept;
            digits.clear();
            for k in (0..p).rev() {
                let _ = write!(digits, "{:x}", (m >> (4 * k)) & 0xf);
            }
            let lead = lead + (m >> (4 * p as u64)) as u8;
            let point = if p > 0 { "." } else { "" };
            let mut t = String::new();
            let _ = write!(t, "0x{lead}{point}{digits}p{}{}", if e < 0 { '-' } else { '+' }, e.unsigned_abs());
            return t;
        }
        _ => {
            let trimmed = digits.trim_end_matches('0');
            digits = String::from(trimmed);
        }
    }
    let point = if digits.is_empty() { "" } else { "." };
    let mut t = String::new();
    let _ = write!(t, "0x{lead}{point}{digits}p{}{}", if e < 0 { '-' } else { '+' }, e.unsigned_abs());
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(fmt: &str, args: &[Arg]) -> String {
        String::from_utf8(format(fmt.as_bytes(), args)).unwrap()
    }

    #[test]
    fn conversions_print_as_c_does() {
        let i = |v: i64| Arg::Int(v as u64, false);
        let l = |v: i64| Arg::Int(v as u64, true);
        assert_eq!(
            f("%d|%5d|%-5d|%05d|%+d|% d|%.3d", &[i(42), i(-42), i(7), i(-7), i(3), i(3), i(5)]),
            "42|  -42|7    |-0007|+3| 3|005"
        );
        assert_eq!(
            f("%u %x %X %#x %o %#o %lld %lu", &[i(-1), i(255), i(255), i(255), i(8), i(8), l(-5), l(-1)]),
            "4294967295 ff FF 0xff 10 010 -5 18446744073709551615"
        );
        assert_eq!(f("%hhd %hd %c%c", &[i(300), i(70000), i(b'o' as i64), i(b'k' as i64)]), "44 4464 ok");
        let d = Arg::Double;
        assert_eq!(
            f("%f %.2f %8.3f %-8.1f| %.0f %#.0f", &[d(1.5), d(1.23456), d(-2.0), d(0.25), d(2.5), d(3.0)]),
            "1.500000 1.23   -2.000 0.2     | 2 3."
        );
        assert_eq!(
            f(
                "%e %.3E %g %g %g %g %G",
                &[d(12345.678), d(0.00012), d(100000.0), d(1e6), d(0.0001), d(1e-5), d(1.5e-10)]
            ),
            "1.234568e+04 1.200E-04 100000 1e+06 0.0001 1e-05 1.5E-10"
        );
        assert_eq!(f("%g %#g %.3g %g", &[d(0.5), d(1.0), d(1.23456), d(123456789.0)]), "0.5 1.00000 1.23 1.23457e+08");
        assert_eq!(f("%f %e %F", &[d(f64::INFINITY), d(f64::NAN), d(-f64::INFINITY)]), "inf nan -INF");
        assert_eq!(f("%a %a %.1a", &[d(1.0), d(0.75), d(1.96875)]), "0x1p+0 0x1.8p-1 0x2.0p+0");
        assert_eq!(
            f(
                "[%s|%.2s|%6s|%-6s]",
                &[Arg::Str(Some(b"hey")), Arg::Str(Some(b"hey")), Arg::Str(Some(b"ab")), Arg::Str(None)]
            ),
            "[hey|he|    ab|(null)]"
        );
        assert_eq!(f("%p %p 100%%", &[Arg::Ptr(0x7f00), Arg::Ptr(0)]), "0x7f00 (nil) 100%");
        // Missing arguments and unsupported conversions print as written.
        assert_eq!(f("%d %d %n %*d", &[i(1)]), "1 %d %n %*d");
    }

    #[test]
    fn records_render_in_order() {
        // A printf record: "x=%d %s\n" with 7 and "ok", then an assert record.
        let mut rec = Vec::new();
        let string = |v: &mut Vec<u8>, s: &[u8]| {
            v.extend_from_slice(&(s.len() as u32).to_le_bytes());
            v.extend_from_slice(&0u32.to_le_bytes());
            v.extend_from_slice(s);
            v.resize(pad8(v.len()), 0);
        };
        let mut p = alloc::vec![0u8; 8];
        string(&mut p, b"x=%d %s\n");
        p.extend_from_slice(&0u32.to_le_bytes());
        p.extend_from_slice(&0u32.to_le_bytes());
        p.extend_from_slice(&7u64.to_le_bytes());
        p.extend_from_slice(&3u32.to_le_bytes());
        p.extend_from_slice(&0u32.to_le_bytes());
        string(&mut p, b"ok");
        let n = p.len() as u32;
        p[0..4].copy_from_slice(&n.to_le_bytes());
        p[4..6].copy_from_slice(&KIND_PRINTF.to_le_bytes());
        p[6..8].copy_from_slice(&2u16.to_le_bytes());
        rec.extend_from_slice(&p);
        let mut a = alloc::vec![0u8; 8];
        for v in [1u32, 0, 0, 5, 0, 0, 12, 0] {
            a.extend_from_slice(&v.to_le_bytes());
        }
        string(&mut a, b"i < 3");
        string(&mut a, b"k.cu");
        string(&mut a, b"void k(int *)");
        let n = a.len() as u32;
        a[0..4].copy_from_slice(&n.to_le_bytes());
        a[4..6].copy_from_slice(&KIND_ASSERT.to_le_bytes());
        rec.extend_from_slice(&a);
        let out = render(&rec, 2);
        assert_eq!(out[0], (Output::Stdout, b"x=7 ok\n".to_vec()));
        assert_eq!(
            String::from_utf8(out[1].1.clone()).unwrap(),
            "k.cu:12: void k(int *): block: [1,0,0], thread: [5,0,0] Assertion `i < 3` failed.\n"
        );
        assert_eq!(out[1].0, Output::Stderr);
        assert!(String::from_utf8(out[2].1.clone()).unwrap().contains("2 device printf records"));
        // A truncated record ends the rendering without a panic.
        assert_eq!(render(&rec[..12], 0).len(), 0);
    }
}
