//! The dissected tree as indented text, one element per line.

use std::fmt::Write as _;

use super::Node;

/// Writes the tree as indented text, one element per line:
/// `NAME [TYPE] len=LENGTH @OFFSET = VALUE`, children two spaces deeper.
pub fn render_text(nodes: &[Node], out: &mut String) {
    fn rec(n: &Node, depth: usize, out: &mut String) {
        let _ = write!(
            out,
            "{:indent$}{} [{}] len={} @{}",
            "",
            n.name,
            n.typ,
            n.length,
            n.offset,
            indent = depth * 2
        );
        if let Some(v) = &n.value {
            let _ = write!(out, " = {v}");
        }
        out.push('\n');
        for c in &n.children {
            rec(c, depth + 1, out);
        }
    }
    for n in nodes {
        rec(n, 0, out);
    }
}
