//! What a set of C/C++ headers declares, read from clang's AST dump (`-Xclang -ast-dump`)
//! and its macro dump (`-E -dM`): the header-completeness test compares NVIDIA's headers
//! with rgdev's this way, by name, canonical type and value.

use std::collections::{BTreeMap, BTreeSet};

/// One declaration a program can name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Decl {
    /// `function`, `type`, `enumerator`, `variable`, `field` or `template`.
    pub kind: &'static str,
    /// The qualified name (inline namespaces left out).
    pub name: String,
    /// What must agree: a function's or field's canonical type, an enumerator's value, a
    /// typedef's canonical type; empty where only the name matters.
    pub what: String,
    /// The header it is declared in.
    pub file: String,
}

#[derive(Debug)]
enum Scope {
    Namespace(String),
    Transparent,
    Record { name: String, public: bool },
    Enum { scoped: Option<String> },
    Other,
}

/// The declarations of an AST dump a program can name: functions, types, templates,
/// enumerators and variables of namespaces and `extern "C"` blocks, and the public members of
/// their classes. Implicit declarations, template instantiations and bodies are left out.
pub fn parse_ast(dump: &str) -> Vec<Decl> {
    let mut out: Vec<Decl> = Vec::new();
    let mut stack: Vec<(usize, Scope)> = Vec::new();
    let mut file = String::new();
    // The enumerator whose value is still to be read (its index in `out`), and the last value.
    let mut pending: Option<(usize, usize)> = None;
    let mut next_value: i128 = 0;
    for line in dump.lines() {
        let Some((depth, kind, rest)) = split_line(line) else { continue };
        let here = first_path(rest).unwrap_or_else(|| file.clone());
        if let Some(p) = last_path(rest) {
            file = p;
        }
        if let Some((i, d)) = pending {
            if depth <= d {
                pending = None;
            } else if let Some(v) = line.split("value: Int ").nth(1)
                && let Ok(v) = v.trim().parse::<i128>()
            {
                out[i].what = v.to_string();
                next_value = v + 1;
                pending = None;
            }
        }
        while stack.last().is_some_and(|(d, _)| *d >= depth) {
            stack.pop();
        }
        // An out-of-line member definition (`parent 0x...`) was declared in its class.
        let implicit = rest.contains(" implicit ")
            || rest.ends_with(" implicit")
            || rest.starts_with(" 0x") && rest.contains(" parent 0x");
        let parent = stack.last().map(|(_, s)| s);
        let at_scope = matches!(parent, None | Some(Scope::Namespace(_)) | Some(Scope::Transparent));
        let prefix = qualifier(&stack);
        let (name, ty) = name_and_type(rest);
        let scope = match kind {
            "NamespaceDecl" => {
                if !at_scope {
                    Scope::Other
                } else if rest.trim_end().ends_with(" inline") {
                    Scope::Transparent
                } else {
                    Scope::Namespace(name.clone().unwrap_or_default())
                }
            }
            "LinkageSpecDecl" if at_scope => Scope::Transparent,
            "CXXRecordDecl" | "RecordDecl" if at_scope || is_public_member(parent) => {
                let Some(n) = name.clone().filter(|_| !implicit) else {
                    stack.push((depth, Scope::Other));
                    continue;
                };
                if rest.contains(" definition") || !out.iter().any(|d: &Decl| d.name == format!("{prefix}{n}")) {
                    push(&mut out, "type", format!("{prefix}{n}"), String::new(), &here);
                }
                let public = !rest.contains(" class ");
                Scope::Record { name: n, public }
            }
            "ClassTemplateDecl" if at_scope || is_public_member(parent) => {
                let n = name.clone().unwrap_or_default();
                push(&mut out, "template", format!("{prefix}{n}"), String::new(), &here);
                // Its pattern (the CXXRecordDecl child) carries the members.
                Scope::Namespace(String::new())
            }
            "EnumDecl" if at_scope || is_public_member(parent) => {
                next_value = 0;
                let scoped = rest.contains(" class ") || rest.contains(" struct ");
                match &name {
                    Some(n) => {
                        push(&mut out, "type", format!("{prefix}{n}"), String::new(), &here);
                        Scope::Enum { scoped: scoped.then(|| n.clone()) }
                    }
                    None => Scope::Enum { scoped: None },
                }
            }
            "EnumConstantDecl" => {
                if let (Some(Scope::Enum { scoped }), Some(n)) = (parent, &name) {
                    let q = match scoped {
                        Some(e) => format!("{}{e}::{n}", qualifier(&stack[..stack.len() - 1])),
                        None => format!("{}{n}", qualifier(&stack[..stack.len() - 1])),
                    };
                    push(&mut out, "enumerator", q, next_value.to_string(), &here);
                    pending = Some((out.len() - 1, depth));
                    next_value += 1;
                }
                Scope::Other
            }
            "FunctionDecl" | "CXXMethodDecl" | "CXXConstructorDecl" | "CXXConversionDecl"
                if !implicit && (at_scope || is_public_member(parent)) =>
            {
                if let Some(n) = &name {
                    push(&mut out, "function", format!("{prefix}{n}"), ty.unwrap_or_default(), &here);
                }
                Scope::Other
            }
            "FunctionTemplateDecl" | "TypeAliasTemplateDecl" | "VarTemplateDecl"
                if !implicit && (at_scope || is_public_member(parent)) =>
            {
                if let Some(n) = &name {
                    push(&mut out, "template", format!("{prefix}{n}"), String::new(), &here);
                }
                Scope::Other
            }
            "TypedefDecl" | "TypeAliasDecl" if !implicit && (at_scope || is_public_member(parent)) => {
                if let Some(n) = &name {
                    let t = ty.unwrap_or_default();
                    push(&mut out, "type", format!("{prefix}{n}"), t, &here);
                }
                Scope::Other
            }
            "VarDecl" if !implicit && (at_scope || is_public_member(parent)) => {
                if let Some(n) = &name {
                    push(&mut out, "variable", format!("{prefix}{n}"), String::new(), &here);
                }
                Scope::Other
            }
            "FieldDecl" if !implicit && is_public_member(parent) => {
                if let Some(n) = &name {
                    push(&mut out, "field", format!("{prefix}{n}"), ty.unwrap_or_default(), &here);
                }
                Scope::Other
            }
            "AccessSpecDecl" => {
                if let Some((_, Scope::Record { public, .. })) = stack.last_mut() {
                    *public = rest.trim_end().ends_with("public");
                }
                continue;
            }
            _ => Scope::Other,
        };
        stack.push((depth, scope));
    }
    out
}

fn push(out: &mut Vec<Decl>, kind: &'static str, name: String, what: String, file: &str) {
    out.push(Decl { kind, name, what: without_paths(&what), file: file.to_string() });
}

/// `(unnamed struct at /path/x.h:12:5)` as `(unnamed struct)`: where a type was written is not
/// what it is.
fn without_paths(t: &str) -> String {
    let mut s = t.to_string();
    while let Some(at) = s.find(" at /") {
        let end = s[at..].find(')').map_or(s.len(), |e| at + e);
        s.replace_range(at..end, "");
    }
    s
}

fn is_public_member(parent: Option<&Scope>) -> bool {
    matches!(parent, Some(Scope::Record { public: true, .. }))
}

fn qualifier(stack: &[(usize, Scope)]) -> String {
    let mut q = String::new();
    for (_, s) in stack {
        match s {
            Scope::Namespace(n) if !n.is_empty() => q += &format!("{n}::"),
            Scope::Record { name, .. } => q += &format!("{name}::"),
            _ => {}
        }
    }
    q
}

/// A dump line's depth, node kind and the rest of it.
fn split_line(line: &str) -> Option<(usize, &str, &str)> {
    let at = line.find("|-").or_else(|| line.find("`-"))?;
    if line[..at].chars().any(|c| c != ' ' && c != '|') {
        return None;
    }
    let body = &line[at + 2..];
    let kind_end = body.find(' ').unwrap_or(body.len());
    Some((at / 2 + 1, &body[..kind_end], &body[kind_end..]))
}

fn paths(rest: &str) -> impl Iterator<Item = String> + '_ {
    rest.match_indices('/').filter_map(move |(i, _)| {
        let prev = rest[..i].chars().last();
        if !matches!(prev, Some('<') | Some(' ')) {
            return None;
        }
        let end = rest[i..].find([':', ',', '>', ' '])? + i;
        rest[end..].starts_with(':').then(|| rest[i..end].to_string())
    })
}

fn first_path(rest: &str) -> Option<String> {
    paths(rest).next()
}

fn last_path(rest: &str) -> Option<String> {
    paths(rest).last()
}

const FLAGS: &[&str] = &[
    "definition",
    "implicit",
    "referenced",
    "used",
    "invalid",
    "inline",
    "constexpr",
    "struct",
    "class",
    "union",
    "extern",
    "static",
    "cinit",
    "callinit",
    "listinit",
    "parenlistinit",
    "nrvo",
    "hidden",
    "typename",
    "virtual",
    "pure",
    "delete",
    "default",
    "trivial",
    "explicit",
    "consteval",
    "prev",
    "parent",
    "imported",
    "__module_private__",
    "constinit",
    "tls",
    "mutable",
];

/// The declared name (the last identifier before the type) and the canonical type.
fn name_and_type(rest: &str) -> (Option<String>, Option<String>) {
    // Skip the source range `<...>` (nested brackets: `<scratch space>`, `<Spelling=...>`).
    let mut depth = 0i32;
    let mut after = 0;
    for (i, c) in rest.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => {
                depth -= 1;
                if depth == 0 {
                    after = i + 1;
                    break;
                }
            }
            '\'' if depth == 0 => break,
            _ => {}
        }
    }
    let tail = &rest[after..];
    let q = tail.find('\'').unwrap_or(tail.len());
    // `operator+=`, `operator float`, `operator unsigned long`: the words after `operator`.
    if let Some(op) = tail[..q].find(" operator") {
        let name = tail[op + 1..q].split_whitespace().collect::<Vec<_>>().join(" ");
        return (Some(name), quoted_type(&tail[q..]));
    }
    let name = tail[..q]
        .split_whitespace()
        .skip(1) // the location
        .filter(|t| {
            !FLAGS.contains(t) && !t.starts_with("0x") && t.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '~')
        })
        .last()
        .map(str::to_string);
    (name, quoted_type(&tail[q..]))
}

/// `'spelled'` or `'spelled':'canonical'`: the last of them.
fn quoted_type(s: &str) -> Option<String> {
    if s.is_empty() {
        return None;
    }
    let quoted: Vec<&str> = s.split('\'').collect();
    let mut best = None;
    let mut i = 1;
    while i < quoted.len() {
        best = Some(quoted[i]);
        if quoted.get(i + 1) != Some(&":") {
            break;
        }
        i += 2;
    }
    best.map(str::to_string)
}

/// `#define NAME VALUE` lines of `clang -E -dM` as name → value (whitespace collapsed).
pub fn parse_macros(dump: &str) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    for l in dump.lines() {
        let Some(rest) = l.strip_prefix("#define ") else { continue };
        let end = rest.find([' ', '(']).unwrap_or(rest.len());
        let (name, value) = rest.split_at(end);
        m.insert(name.to_string(), value.split_whitespace().collect::<Vec<_>>().join(" "));
    }
    m
}

/// `name`'s value with the object-like and function-like macros of `m` in it expanded (not
/// recursively into themselves), whitespace removed: two spellings of one value compare equal.
pub fn expand(m: &BTreeMap<String, String>, name: &str) -> String {
    let mut active = vec![name.to_string()];
    expand_text(m, m.get(name).map(String::as_str).unwrap_or(""), &mut active, 0)
}

fn expand_text(m: &BTreeMap<String, String>, text: &str, active: &mut Vec<String>, depth: u32) -> String {
    let b = text.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        if c == '\u{1}' {
            let end = text[i..].find('\u{2}').map_or(text.len(), |e| i + e);
            out += &text[i + 1..end];
            i = end + 1;
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let id = &text[start..i];
            let def = m.get(id).filter(|_| depth < 16 && !active.iter().any(|a| a == id));
            match def {
                Some(d) if d.starts_with('(') && !d.starts_with("((") && text[i..].trim_start().starts_with('(') => {
                    // Function-like: `(params) body` applied to `(args)`.
                    let close = d.find(')').unwrap_or(d.len() - 1);
                    let params: Vec<&str> = d[1..close].split(',').map(str::trim).collect();
                    let body = &d[close + 1..];
                    let open = i + text[i..].find('(').unwrap_or(0);
                    let (args, end) = split_args(&text[open..]);
                    i = open + end;
                    // Arguments are expanded before they are substituted (C11 6.10.3.1).
                    let args: Vec<String> = args.iter().map(|a| expand_text(m, a, active, depth + 1)).collect();
                    let mut subst = String::new();
                    let bb = body.as_bytes();
                    let mut j = 0;
                    while j < bb.len() {
                        if bb[j].is_ascii_alphabetic() || bb[j] == b'_' {
                            let s0 = j;
                            while j < bb.len() && (bb[j].is_ascii_alphanumeric() || bb[j] == b'_') {
                                j += 1;
                            }
                            let w = &body[s0..j];
                            match params.iter().position(|p| *p == w) {
                                // Expanded already: kept as it is on the rescan (\u{1}..\u{2}).
                                Some(k) => {
                                    subst.push('\u{1}');
                                    subst += args.get(k).map(String::as_str).unwrap_or("");
                                    subst.push('\u{2}');
                                }
                                None => subst += w,
                            }
                        } else {
                            subst.push(bb[j] as char);
                            j += 1;
                        }
                    }
                    active.push(id.to_string());
                    out += &expand_text(m, &subst, active, depth + 1);
                    active.pop();
                }
                Some(d) if !d.starts_with('(') || d.starts_with("((") || !is_function_like(d) => {
                    active.push(id.to_string());
                    out += &expand_text(m, d, active, depth + 1);
                    active.pop();
                }
                _ => out += id,
            }
        } else {
            if !c.is_whitespace() {
                out.push(c);
            }
            i += 1;
        }
    }
    out
}

/// `parse_macros` keeps a function-like macro's `(params)` in its value; an object-like value
/// may begin with a parenthesis too (`(1 << 2)`): params are identifiers and commas only.
fn is_function_like(d: &str) -> bool {
    let Some(close) = d.find(')') else { return false };
    d[1..close].split(',').all(|p| {
        let p = p.trim();
        p.is_empty() || p == "..." || p.chars().all(|c| c.is_alphanumeric() || c == '_')
    }) && d[1..close].chars().any(|c| c.is_alphabetic())
}

/// The comma-separated arguments of `(a, (b, c))` and the length consumed.
fn split_args(s: &str) -> (Vec<String>, usize) {
    let mut args = vec![String::new()];
    let mut depth = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => {
                depth += 1;
                if depth == 1 {
                    continue;
                }
            }
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return (args.into_iter().map(|a| a.trim().to_string()).collect(), i + 1);
                }
            }
            ',' if depth == 1 => {
                args.push(String::new());
                continue;
            }
            _ => {}
        }
        args.last_mut().unwrap().push(c);
    }
    (args, s.len())
}

/// The macro names a header's text defines (`#define NAME`), for telling its macros from
/// those of the headers it includes.
pub fn defined_names(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim_start().strip_prefix('#')?.trim_start().strip_prefix("define")?;
            let n: String = l.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            (!n.is_empty()).then_some(n)
        })
        .collect()
}

/// A macro's value as an integer, where it is one (`0x10`, `(1U << 3)`, `-2`, `12090`).
pub fn int_value(v: &str) -> Option<i128> {
    let t: String = v.chars().filter(|c| !c.is_whitespace()).collect();
    let mut p = Parser { s: t.as_bytes(), i: 0 };
    let x = p.or()?;
    (p.i == p.s.len()).then_some(x)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn eat(&mut self, tok: &str) -> bool {
        if self.s[self.i..].starts_with(tok.as_bytes()) {
            self.i += tok.len();
            true
        } else {
            false
        }
    }
    fn or(&mut self) -> Option<i128> {
        let mut x = self.shift()?;
        while self.s.get(self.i) == Some(&b'|') && self.s.get(self.i + 1) != Some(&b'|') {
            self.i += 1;
            x |= self.shift()?;
        }
        Some(x)
    }
    fn shift(&mut self) -> Option<i128> {
        let mut x = self.add()?;
        loop {
            if self.eat("<<") {
                x = x.checked_shl(u32::try_from(self.add()?).ok()?)?;
            } else if self.eat(">>") {
                x >>= u32::try_from(self.add()?).ok()?;
            } else {
                return Some(x);
            }
        }
    }
    fn add(&mut self) -> Option<i128> {
        let mut x = self.unary()?;
        loop {
            if self.eat("+") {
                x += self.unary()?;
            } else if self.eat("-") {
                x -= self.unary()?;
            } else if self.eat("*") {
                x *= self.unary()?;
            } else {
                return Some(x);
            }
        }
    }
    fn unary(&mut self) -> Option<i128> {
        if self.eat("-") {
            return Some(-self.unary()?);
        }
        if self.eat("~") {
            return Some(!self.unary()?);
        }
        if self.eat("(") {
            // A cast to an integer type: `(int)`, `(unsigned int)`, `(size_t)`...
            for cast in ["unsignedint)", "unsignedlonglong)", "int)", "unsigned)", "size_t)", "longlong)", "void*)"] {
                if self.eat(cast) {
                    return self.unary();
                }
            }
            let x = self.or()?;
            return self.eat(")").then_some(x);
        }
        let start = self.i;
        while self.i < self.s.len() && self.s[self.i].is_ascii_alphanumeric() {
            self.i += 1;
        }
        let lit = std::str::from_utf8(&self.s[start..self.i]).ok()?.to_ascii_lowercase();
        let digits = lit.trim_end_matches(['u', 'l']);
        if let Some(h) = digits.strip_prefix("0x") {
            i128::from_str_radix(h, 16).ok()
        } else if digits.len() > 1 && digits.starts_with('0') {
            i128::from_str_radix(&digits[1..], 8).ok()
        } else {
            digits.parse().ok()
        }
    }
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn reads_a_dump() {
        let dump = "TranslationUnitDecl 0x1 <<invalid sloc>> <invalid sloc>
|-LinkageSpecDecl 0x2 </inc/cuda.h:10:1, line:90:1> line:10:8 C
| |-TypedefDecl 0x3 <line:11:1, col:20> col:20 referenced CUdeviceptr 'unsigned long long'
| |-EnumDecl 0x4 <line:12:1, line:15:1> line:12:14 cudaError_enum
| | |-EnumConstantDecl 0x5 <line:13:5, col:20> col:5 CUDA_SUCCESS 'cudaError_enum'
| | | `-ConstantExpr 0x6 <col:20> 'int'
| | |   |-value: Int 0
| | |   `-IntegerLiteral 0x7 <col:20> 'int' 0
| | |-EnumConstantDecl 0x8 <line:14:5, col:20> col:5 CUDA_ERROR_A 'cudaError_enum'
| | `-EnumConstantDecl 0x9 <line:15:5, col:20> col:5 CUDA_ERROR_B 'cudaError_enum'
| |   `-ConstantExpr 0x6 <col:20> 'int'
| |     |-value: Int 7
| |     `-IntegerLiteral 0x7 <col:20> 'int' 7
| `-FunctionDecl 0xa <line:20:1, col:40> col:29 cuInit 'CUresult (unsigned int)':'enum cudaError_enum (unsigned int)'
|   `-ParmVarDecl 0xb <col:36, col:49> col:49 Flags 'unsigned int'
`-NamespaceDecl 0xc </inc/mma.h:1:1, line:9:1> line:1:11 nvcuda
  `-NamespaceDecl 0xd <line:2:1, line:8:1> line:2:11 wmma
    |-CXXRecordDecl 0xe <line:3:1, col:30> col:8 struct row_major definition
    | `-CXXRecordDecl 0xf <col:1, col:8> col:8 implicit struct row_major
    `-FunctionDecl 0x10 <line:4:1, col:40> col:29 fill 'void (int)'
";
        let d = parse_ast(dump);
        let show: Vec<String> = d.iter().map(|d| format!("{} {} {} {}", d.kind, d.name, d.what, d.file)).collect();
        assert_eq!(
            show,
            [
                "type CUdeviceptr unsigned long long /inc/cuda.h",
                "type cudaError_enum  /inc/cuda.h",
                "enumerator CUDA_SUCCESS 0 /inc/cuda.h",
                "enumerator CUDA_ERROR_A 1 /inc/cuda.h",
                "enumerator CUDA_ERROR_B 7 /inc/cuda.h",
                "function cuInit enum cudaError_enum (unsigned int) /inc/cuda.h",
                "type nvcuda::wmma::row_major  /inc/mma.h",
                "function nvcuda::wmma::fill void (int) /inc/mma.h",
            ]
        );
    }

    #[test]
    fn macro_values() {
        assert_eq!(int_value("0x10U"), Some(16));
        assert_eq!(int_value("(1 << 3)"), Some(8));
        assert_eq!(int_value("((unsigned int)0x02)"), Some(2));
        assert_eq!(int_value("-2"), Some(-2));
        assert_eq!(int_value("cuMemAlloc_v2"), None);
        let m = parse_macros("#define A 1\n#define F(x) ((x) + 1)\n#define E\n");
        assert_eq!(m["A"], "1");
        assert_eq!(m["F"], "(x) ((x) + 1)");
        assert_eq!(m["E"], "");
        let m = parse_macros("#define P(api) api\n#define X P(x_v2)\n#define ONE 0x01\n#define V ((void*)ONE)\n");
        assert_eq!(expand(&m, "X"), "x_v2");
        assert_eq!(int_value(&expand(&m, "V")), Some(1));
        let m = parse_macros("#define P(api) api\n#define f P(f_v2)\n#define f_v2 P(f_v2)\n");
        assert_eq!(expand(&m, "f"), "f_v2");
    }
}
