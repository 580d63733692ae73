use super::*;

#[test]
fn a_history_cursor_reads_back_and_a_bad_one_is_refused() {
    let c = HistoryCursor {
        finished_ms: 1_750_000_000_123,
        room: "r.with.dots".into(),
        game: 7,
    };
    assert_eq!(parse_cursor(&cursor_text(&c)), Some(c));
    for bad in ["", "x.1.r", "1.x.r", "1.2", "1.2.", "-1.2.r"] {
        assert_eq!(parse_cursor(bad), None, "{bad:?}");
    }
}
