//! A hint list as `tabula hint` prints it.

use std::io::Write;

/// Prints hints as text (one line each) or JSON.
pub fn print_hints<P>(
    game: &str,
    dice: tabula_dice::Dice,
    hints: &[tabula_bots::hint::Hint<P>],
    name: impl Fn(&P) -> String,
    json: bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    if json {
        let list: Vec<serde_json::Value> = hints
            .iter()
            .map(|h| {
                serde_json::json!({
                    "play": name(&h.play),
                    "score": h.score,
                    "win": h.win,
                    "equity": h.equity,
                    "rollouts": h.rollouts,
                })
            })
            .collect();
        let v = serde_json::json!({
            "game": game,
            "dice": [dice.first(), dice.second()],
            "hints": list,
        });
        writeln!(out, "{v}")?;
        return Ok(());
    }
    if hints.is_empty() {
        writeln!(out, "no legal play: the turn passes")?;
    }
    for (i, h) in hints.iter().enumerate() {
        let play = name(&h.play);
        let how = if h.rollouts > 0 {
            format!("{} rollouts", h.rollouts)
        } else {
            "estimate".to_string()
        };
        writeln!(
            out,
            "{:>3}. {play:<28} win {:>5.1}%  equity {:>+6.3}  score {:>8.2}  ({how})",
            i + 1,
            100.0 * h.win,
            h.equity,
            h.score
        )?;
    }
    Ok(())
}
