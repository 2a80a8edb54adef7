//! A deal as labelled rows (`player 1:`, `flop:`, `turn:`, `river:`), aligned.

/// Board labels: flop, turn and river for a board of 3 to 5 cards.
pub(super) fn board_rows(board: &[String]) -> Vec<(String, String)> {
    if (3..=5).contains(&board.len()) {
        let mut rows = vec![("flop".to_owned(), board[..3].join(" "))];
        if let Some(turn) = board.get(3) {
            rows.push(("turn".to_owned(), turn.clone()));
        }
        if let Some(river) = board.get(4) {
            rows.push(("river".to_owned(), river.clone()));
        }
        rows
    } else if board.is_empty() {
        Vec::new()
    } else {
        vec![("board".to_owned(), board.join(" "))]
    }
}

/// Appends `rows` as `name: cards` lines, the cards aligned in one column.
pub(super) fn write_rows(rows: &[(String, String)], out: &mut String) {
    let width = rows.iter().map(|(name, _)| name.len()).max().unwrap_or(0);
    for (name, cards) in rows {
        let head = format!("{name}:");
        let line = format!("{head:<w$} {cards}", w = width + 1);
        out.push_str(line.trim_end());
        out.push('\n');
    }
}
