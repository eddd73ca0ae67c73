package com.tongcheng.presenter

import com.tongcheng.core.HintModel

/** One of the top discard choices, as the hint panel lists it. */
data class DiscardChoiceUi(
    val tile: TileUi,
    /** "Discard 5m · 1 step from ready · 24 live useful tiles (3m 6m 4p)". */
    val line: String,
    /** "Keeps 清一色 Full Flush, about 24 points", or null. */
    val value: String?,
    /** "Beats 7p: 38 live useful tiles against 24.", or null. */
    val versus: String?,
    val recommended: Boolean,
)

/** The hint panel: what to do and why, and for a turn the top choices compared: distance, live
 *  useful tiles (counted against what the player can see), the fan target each keeps with
 *  rough points, and why it beats the next one (the core's `target`, `points`, `versus`). */
data class HintUi(
    /** "Suggested: Discard 5m". */
    val headline: String,
    val reason: String,
    val choices: List<DiscardChoiceUi>,
) {
    companion object {
        /** The top choices a hint explains (the core explains the first ones against the next). */
        const val SHOWN = 3

        fun of(h: HintModel): HintUi {
            val recommended = h.recommended
            return HintUi(
                headline = recommended?.let { "Suggested: ${TablePresenter.label(it)}" } ?: "No suggestion",
                reason = h.reason,
                choices = h.discards.take(SHOWN).map { d ->
                    DiscardChoiceUi(
                        tile = TablePresenter.tileUi(d.tile, false),
                        line = listOf(
                            "Discard ${d.tile.code}",
                            distance(d.shanten.toInt()),
                            liveText(d.live.toInt()) + (if (d.useful.isBlank()) "" else " (${d.useful})"),
                        ).joinToString(" · "),
                        value = value(d.target, d.points),
                        versus = d.versus?.takeIf { it.isNotBlank() },
                        recommended = recommended == com.tongcheng.core.ActionModel.Discard(d.tile.code),
                    )
                },
            )
        }

        /** Shanten in words: "ready", "1 step from ready", "3 steps from ready". */
        fun distance(shanten: Int): String = when {
            shanten < 0 -> "a winning hand"
            shanten == 0 -> "ready"
            shanten == 1 -> "1 step from ready"
            else -> "$shanten steps from ready"
        }

        fun liveText(n: Int): String = if (n == 1) "1 live useful tile" else "$n live useful tiles"

        fun points(n: UInt): String = if (n == 1u) "1 point" else "$n points"

        fun value(target: String?, points: UInt): String? = when {
            target != null && points > 0u -> "Keeps $target, about ${points(points)}"
            target != null -> "Keeps $target"
            points > 0u -> "About ${points(points)}"
            else -> null
        }
    }
}
