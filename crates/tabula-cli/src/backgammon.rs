//! This game's subcommands (filled in with the engine).

use std::io::Write;

use crate::{MovesArgs, PerftArgs, SelfplayArgs};

pub fn moves(_a: &MovesArgs, _out: &mut dyn Write) -> anyhow::Result<()> {
    anyhow::bail!("this game's engine has not landed yet")
}

pub fn selfplay(_a: &SelfplayArgs, _out: &mut dyn Write) -> anyhow::Result<()> {
    anyhow::bail!("this game's engine has not landed yet")
}

pub fn perft(_a: &PerftArgs, _out: &mut dyn Write) -> anyhow::Result<()> {
    anyhow::bail!("this game's engine has not landed yet")
}
