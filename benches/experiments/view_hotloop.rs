// Standalone experiment behind benches/README.md, "4. `memspec call` vs `cat -n`".
//
// It replicates the reference's view hot loop (src/reference/text.rs and view.rs at 6039ec3) and
// applies the suggested fixes one at a time. Every mode prints exactly what
// `memspec call '{"command":"view","path":"/memories/big.txt"}'` prints. It is not part of the
// memspec build: cargo discovers only benches/*.rs and benches/*/main.rs, and this file is
// neither. To run it:
//
//   cargo new --bin /tmp/viewexp && cp view_hotloop.rs /tmp/viewexp/src/main.rs
//   cd /tmp/viewexp && cargo add memchr@2 && cargo build --release
//   for m in current splitonly fastloop stream; do
//     perf stat -r 21 -e task-clock,page-faults ./target/release/viewexp $m BIG > /dev/null; done
//   perf stat -r 21 -e task-clock,page-faults cat -n BIG > /dev/null
//
// Modes: current (today's algorithm) | splitonly (+ memchr line iteration) | fastloop (+ ASCII
// counter, Vec<u8>) | stream (+ write into the BufWriter, no big String) | readwrite (read + UTF-8
// check + copy: the floor of the approach).
use std::io::{Read, Write};

fn line_count(text: &str) -> usize {
    let newlines = text.bytes().filter(|&b| b == b'\n').count();
    if text.is_empty() || text.ends_with('\n') { newlines } else { newlines + 1 }
}
fn lines(text: &str) -> impl Iterator<Item = &str> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    let empty = text.is_empty();
    body.split('\n').filter(move |_| !empty)
}
fn push_number(out: &mut String, mut n: usize) {
    let mut digits = [b' '; 20];
    let mut i = digits.len();
    loop { i -= 1; digits[i] = b'0' + (n % 10) as u8; n /= 10; if n == 0 { break; } }
    let start = i.min(digits.len() - 6);
    out.push_str(std::str::from_utf8(&digits[start..]).unwrap_or_default());
}

/// Line number kept as ASCII and incremented in place, like cat -n.
struct Counter { digits: [u8; 24], start: usize }
impl Counter {
    fn new(first: usize) -> Self {
        let mut c = Counter { digits: [b' '; 24], start: 24 - 6 };
        let s = format!("{first:>6}");
        let b = s.as_bytes();
        c.start = 24 - b.len();
        c.digits[c.start..].copy_from_slice(b);
        c
    }
    #[inline] fn bytes(&self) -> &[u8] { &self.digits[self.start..] }
    #[inline] fn incr(&mut self) {
        let mut i = 23;
        loop {
            match self.digits[i] {
                b'9' => { self.digits[i] = b'0'; i -= 1; }
                b' ' => { self.digits[i] = b'1'; if i < self.start { self.start = i; } return; }
                d => { self.digits[i] = d + 1; return; }
            }
        }
    }
}

fn read(path: &str) -> Vec<u8> {
    let mut f = std::fs::File::open(path).unwrap();
    let len = f.metadata().unwrap().len() as usize;
    let mut v = Vec::with_capacity(len);
    f.read_to_end(&mut v).unwrap();
    v
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = args[1].as_str();
    let path = &args[2];
    let header = "Here's the content of /memories/big.txt with line numbers:";
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 20, stdout.lock());
    match mode {
        // A: today's algorithm.
        "current" => {
            let bytes = read(path);
            let content = std::str::from_utf8(&bytes).unwrap();
            let n = line_count(content);
            assert!(n <= 999_999);
            let mut s = String::with_capacity(header.len() + content.len() + 8 * n);
            s.push_str(header);
            let mut number = 1;
            for line in lines(content) { s.push('\n'); push_number(&mut s, number); s.push('\t'); s.push_str(line); number += 1; }
            out.write_all(s.as_bytes()).unwrap(); out.write_all(b"\n").unwrap();
        }
        // B: same shape (one String), but memchr-crate line splitting and an ASCII counter.
        "fastloop" => {
            let bytes = read(path);
            let content = std::str::from_utf8(&bytes).unwrap();
            let b = content.as_bytes();
            let n = memchr::memchr_iter(b'\n', b).count() + usize::from(!b.is_empty() && !b.ends_with(b"\n"));
            assert!(n <= 999_999);
            let mut s: Vec<u8> = Vec::with_capacity(header.len() + b.len() + 8 * n);
            s.extend_from_slice(header.as_bytes());
            let body = b.strip_suffix(b"\n").unwrap_or(b);
            let mut c = Counter::new(1);
            let mut at = 0;
            if !b.is_empty() {
                for nl in memchr::memchr_iter(b'\n', body).chain(std::iter::once(body.len())) {
                    s.push(b'\n'); s.extend_from_slice(c.bytes()); s.push(b'\t'); s.extend_from_slice(&body[at..nl]);
                    at = nl + 1; c.incr();
                }
            }
            out.write_all(&s).unwrap(); out.write_all(b"\n").unwrap();
        }
        // C: B without the big output String: numbered lines go straight into the BufWriter.
        "stream" => {
            let bytes = read(path);
            let content = std::str::from_utf8(&bytes).unwrap();
            let b = content.as_bytes();
            let n = memchr::memchr_iter(b'\n', b).count() + usize::from(!b.is_empty() && !b.ends_with(b"\n"));
            assert!(n <= 999_999);
            out.write_all(header.as_bytes()).unwrap();
            let body = b.strip_suffix(b"\n").unwrap_or(b);
            let mut c = Counter::new(1);
            let mut at = 0;
            if !b.is_empty() {
                for nl in memchr::memchr_iter(b'\n', body).chain(std::iter::once(body.len())) {
                    out.write_all(b"\n").unwrap(); out.write_all(c.bytes()).unwrap(); out.write_all(b"\t").unwrap(); out.write_all(&body[at..nl]).unwrap();
                    at = nl + 1; c.incr();
                }
            }
            out.write_all(b"\n").unwrap();
        }
        // D: only the current line splitting swapped for memchr (keeps push_number and the String).
        "splitonly" => {
            let bytes = read(path);
            let content = std::str::from_utf8(&bytes).unwrap();
            let n = line_count(content);
            assert!(n <= 999_999);
            let mut s = String::with_capacity(header.len() + content.len() + 8 * n);
            s.push_str(header);
            let body = content.strip_suffix('\n').unwrap_or(content);
            let mut at = 0; let mut number = 1;
            for nl in memchr::memchr_iter(b'\n', body.as_bytes()).chain(std::iter::once(body.len())) {
                s.push('\n'); push_number(&mut s, number); s.push('\t'); s.push_str(&body[at..nl]); at = nl + 1; number += 1;
            }
            out.write_all(s.as_bytes()).unwrap(); out.write_all(b"\n").unwrap();
        }
        // E: floor of the approach: read + utf8 check + write the file unchanged.
        "readwrite" => {
            let bytes = read(path);
            let content = std::str::from_utf8(&bytes).unwrap();
            out.write_all(content.as_bytes()).unwrap();
        }
        _ => panic!(),
    }
    out.flush().unwrap();
}
