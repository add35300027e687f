//! Byte-level primitives: LEB128 varints, zig-zag signed varints, little-endian
//! fixed-width integers, and a bounds-checked reading cursor whose errors name the
//! absolute file offset and what was expected there.

use crate::BytecodeError;

/// Padding byte NVIDIA's writer uses for alignment (the reader does not check it).
pub(crate) const PAD: u8 = 0xCB;

/// An output buffer.
#[derive(Default)]
pub(crate) struct Sink {
    pub buf: Vec<u8>,
}

impl Sink {
    pub fn byte(&mut self, b: u8) {
        self.buf.push(b);
    }
    pub fn varint(&mut self, mut v: u64) {
        loop {
            let low = (v & 0x7F) as u8;
            v >>= 7;
            if v == 0 {
                self.buf.push(low);
                return;
            }
            self.buf.push(low | 0x80);
        }
    }
    pub fn svarint(&mut self, v: i64) {
        self.varint(((v as u64) << 1) ^ ((v >> 63) as u64));
    }
    pub fn u32le(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn u64le(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }
    /// Pads with [`PAD`] until the length is a multiple of `align` (relative to the
    /// buffer start; section payloads start aligned in the file).
    pub fn align(&mut self, align: usize) {
        while self.buf.len() % align != 0 {
            self.buf.push(PAD);
        }
    }
}

/// A reading cursor over `data[start..end]`; offsets in errors are absolute.
#[derive(Clone)]
pub(crate) struct Cursor<'a> {
    data: &'a [u8],
    pub start: usize,
    pub pos: usize,
    pub end: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(data: &'a [u8], start: usize, end: usize) -> Cursor<'a> {
        let end = end.min(data.len());
        Cursor {
            data,
            start: start.min(end),
            pos: start.min(end),
            end,
        }
    }

    pub fn remaining(&self) -> usize {
        self.end - self.pos
    }

    pub fn at_end(&self) -> bool {
        self.pos >= self.end
    }

    pub fn err(&self, message: impl Into<String>) -> BytecodeError {
        BytecodeError::at(self.pos, message)
    }

    fn eof(&self, what: &str) -> BytecodeError {
        self.err(format!("unexpected end of data, expected {what}"))
    }

    pub fn u8(&mut self, what: &str) -> Result<u8, BytecodeError> {
        if self.pos >= self.end {
            return Err(self.eof(what));
        }
        let b = self.data[self.pos];
        self.pos += 1;
        Ok(b)
    }

    pub fn bytes(&mut self, n: usize, what: &str) -> Result<&'a [u8], BytecodeError> {
        if n > self.remaining() {
            return Err(self.err(format!(
                "unexpected end of data, expected {what} ({n} bytes, {} left)",
                self.remaining()
            )));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    pub fn u16le(&mut self, what: &str) -> Result<u16, BytecodeError> {
        let b = self.bytes(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    pub fn u32le(&mut self, what: &str) -> Result<u32, BytecodeError> {
        let b = self.bytes(4, what)?;
        Ok(u32::from_le_bytes(b.try_into().expect("4 bytes")))
    }

    pub fn u64le(&mut self, what: &str) -> Result<u64, BytecodeError> {
        let b = self.bytes(8, what)?;
        Ok(u64::from_le_bytes(b.try_into().expect("8 bytes")))
    }

    pub fn i32le(&mut self, what: &str) -> Result<i32, BytecodeError> {
        Ok(self.u32le(what)? as i32)
    }

    pub fn i64le(&mut self, what: &str) -> Result<i64, BytecodeError> {
        Ok(self.u64le(what)? as i64)
    }

    /// Unsigned LEB128, at most 10 bytes, rejecting bits beyond 64.
    pub fn varint(&mut self, what: &str) -> Result<u64, BytecodeError> {
        let start = self.pos;
        let mut value: u64 = 0;
        for i in 0..10 {
            let b = self.u8(what)?;
            let low = u64::from(b & 0x7F);
            if i == 9 && low > 1 {
                return Err(BytecodeError::at(
                    start,
                    format!("varint for {what} overflows 64 bits"),
                ));
            }
            value |= low << (7 * i);
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(BytecodeError::at(
            start,
            format!("varint for {what} is longer than 10 bytes"),
        ))
    }

    /// Zig-zag signed varint.
    pub fn svarint(&mut self, what: &str) -> Result<i64, BytecodeError> {
        let v = self.varint(what)?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    /// A count of items that each occupy at least `min_item_bytes` bytes: rejected when
    /// the remaining data could not possibly hold that many, so no allocation or loop is
    /// ever sized by an untrusted number.
    pub fn count(&mut self, what: &str, min_item_bytes: usize) -> Result<usize, BytecodeError> {
        let at = self.pos;
        let n = self.varint(what)?;
        let limit = self
            .remaining()
            .checked_div(min_item_bytes)
            .unwrap_or(self.remaining()) as u64;
        if n > limit {
            return Err(BytecodeError::at(
                at,
                format!(
                    "{what} {n} exceeds what the remaining {} bytes can hold",
                    self.remaining()
                ),
            ));
        }
        Ok(n as usize)
    }

    /// A varint that must fit `usize` below `bound` (a table size); `table` names it.
    pub fn index(&mut self, what: &str, bound: usize) -> Result<usize, BytecodeError> {
        let at = self.pos;
        let v = self.varint(what)?;
        if v >= bound as u64 {
            return Err(BytecodeError::at(
                at,
                format!("{what} {v} is out of range (table has {bound} entries)"),
            ));
        }
        Ok(v as usize)
    }

    /// Skips padding up to a multiple of `align`, relative to the cursor's start.
    pub fn align(&mut self, align: usize, what: &str) -> Result<(), BytecodeError> {
        let rel = self.pos - self.start;
        let pad = (align - rel % align) % align;
        self.bytes(pad, what).map(|_| ())
    }

    /// A sub-cursor over the next `n` bytes (advancing past them).
    pub fn sub(&mut self, n: usize, what: &str) -> Result<Cursor<'a>, BytecodeError> {
        let start = self.pos;
        self.bytes(n, what)?;
        Ok(Cursor {
            data: self.data,
            start,
            pos: start,
            end: start + n,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip() {
        for v in [0u64, 1, 127, 128, 300, u32::MAX as u64, u64::MAX] {
            let mut s = Sink::default();
            s.varint(v);
            let mut c = Cursor::new(&s.buf, 0, s.buf.len());
            assert_eq!(c.varint("v").unwrap(), v);
            assert!(c.at_end());
        }
        for v in [0i64, -1, 1, i64::MIN, i64::MAX, -300] {
            let mut s = Sink::default();
            s.svarint(v);
            let mut c = Cursor::new(&s.buf, 0, s.buf.len());
            assert_eq!(c.svarint("v").unwrap(), v);
        }
    }

    #[test]
    fn overlong_varints_are_errors() {
        let data = [0xFFu8; 11];
        assert!(Cursor::new(&data, 0, 11).varint("v").is_err());
        let data = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02];
        assert!(Cursor::new(&data, 0, 10)
            .varint("v")
            .unwrap_err()
            .message
            .contains("overflows"));
    }

    #[test]
    fn counts_are_bounded_by_remaining_bytes() {
        let data = [0x80, 0x80, 0x04, 1, 2];
        let e = Cursor::new(&data, 0, 5)
            .count("number of things", 1)
            .unwrap_err();
        assert_eq!(e.offset, Some(0));
        assert!(e.message.contains("exceeds"), "{e}");
    }
}
