package com.tongcheng.presenter

import com.tongcheng.core.SessionConfig

/** The rule sets a match can be played under: the core's presets (`RuleSet::preset_names`). */
enum class RuleChoice(val preset: String, val title: String, val detail: String) {
    GUOBIAO("guobiao", "国标 Guobiao", "Chinese Official: 144 tiles, 8-point minimum, 16 hands"),
    HANGZHOU("hangzhou", "杭州 Hangzhou", "House rules: the four 白 are wild (财神), self-draw only"),
    HANGZHOU_MIL("hangzhou-mil", "杭州 Hangzhou MIL 2025", "Competition rules: wild 白, fan sum capped at 4"),
    ;

    companion object {
        fun ofPreset(name: String): RuleChoice? = entries.firstOrNull { it.preset == name }
    }
}

/** How strong the three bots play, as `tongcheng play --level` offers it. */
enum class BotLevel(val code: String, val title: String, val detail: String) {
    EASY("easy", "Easy", "Bots head for any win, claim greedily and never defend"),
    NORMAL("normal", "Normal", "Bots keep the most live useful tiles and claim only when it helps"),
    HARD("hard", "Hard", "Bots plan hands that pay, weigh value against speed and defend"),
    ;

    companion object {
        fun ofCode(code: String): BotLevel? = entries.firstOrNull { it.code == code }
    }
}

/** What the player chose before a match: the rule set and the bots' level. A match is always
 *  a whole match, as in the terminal game. */
data class MatchSetup(val rules: RuleChoice = RuleChoice.GUOBIAO, val level: BotLevel = BotLevel.NORMAL) {
    /** The session to start; the shell picks the seed (the core reads no randomness). */
    fun config(seed: ULong): SessionConfig =
        SessionConfig(rules = rules.preset, level = level.code, seed = seed, fullMatch = true, player = 0u)

    /** "杭州 Hangzhou · hard bots": how the start screen and the history name a match. */
    val title: String get() = "${rules.title} · ${level.title.lowercase()} bots"

    /** One line to keep in a small file ("rules=hangzhou level=hard"); [decode] reads it back. */
    fun encode(): String = "rules=${rules.preset} level=${level.code}"

    companion object {
        /** Reads [encode]'s line; anything unknown or missing falls back to the default, so an
         *  old or damaged file never stops the app from starting. */
        fun decode(text: String?): MatchSetup {
            val fields = text.orEmpty().trim().split(Regex("\\s+"))
                .mapNotNull { f -> f.split("=", limit = 2).takeIf { it.size == 2 }?.let { it[0] to it[1] } }
                .toMap()
            return MatchSetup(
                rules = fields["rules"]?.let(RuleChoice::ofPreset) ?: RuleChoice.GUOBIAO,
                level = fields["level"]?.let(BotLevel::ofCode) ?: BotLevel.NORMAL,
            )
        }

        /** The setup line as written, or null when it names no known rule set (a file from
         *  another version): the caller then describes the match without it. */
        fun decodeStrict(text: String?): MatchSetup? {
            val t = text?.trim().orEmpty()
            val preset = Regex("rules=(\\S+)").find(t)?.groupValues?.get(1)
            val level = Regex("level=(\\S+)").find(t)?.groupValues?.get(1)
            val r = preset?.let(RuleChoice::ofPreset) ?: return null
            val l = level?.let(BotLevel::ofCode) ?: return null
            return MatchSetup(r, l)
        }
    }
}
