//! The one catalogue of every face's words: 简体中文 first, English as the player's choice.
//! A face never writes a word of its own; it shows what the view model carries, and the view
//! model takes every word from here.

use serde::{Deserialize, Serialize};
use tongcheng_core::bot::Level;
use tongcheng_core::table::Clock;
use tongcheng_core::tile::Tile;

/// The player's language. 简体中文 unless he chose English.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Lang {
    #[default]
    #[serde(rename = "zh-CN")]
    ZhCn,
    #[serde(rename = "en")]
    En,
}

impl Lang {
    pub const ALL: [Lang; 2] = [Lang::ZhCn, Lang::En];

    /// The BCP 47 tag a face sets on its document or window.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::ZhCn => "zh-CN",
            Lang::En => "en",
        }
    }
}

/// Every fixed text of the app, by what it is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Text {
    AppName,
    PlayBots,
    QuickMatch,
    RankedMatch,
    FriendsRoom,
    MyHands,
    Settings,
    ContinueMatch,
    NewMatch,
    RuleSet,
    BotLevel,
    Clock,
    Start,
    Back,
    Chow,
    Pung,
    Kong,
    Win,
    Pass,
    Hint,
    AutoPlay,
    Result,
    NextHand,
    MatchOver,
    Home,
    Language,
    Sound,
    On,
    Off,
    YourTurn,
    WaitingFor,
    WallLeft,
    Wild,
    Draw,
    SelfDrawn,
    OnDiscard,
    YouWin,
    Wins,
    Payments,
    ChooseChow,
    NotYetOnline,
    HistorySetAside,
    You,
    Dealer,
    East,
    South,
    West,
    North,
    Statistics,
    AllRules,
    HandsPlayed,
    WinRate,
    SelfDrawnWins,
    DealIns,
    Draws,
    AveragePoints,
    NoHandsYet,
    Sync,
    SyncNow,
    Syncing,
    SyncFailed,
    SyncNeedsLogin,
    AllUploaded,
    Refused,
    PreviousPage,
    NextPage,
    Loading,
    Replay,
    StepFirst,
    StepBack,
    StepForward,
    StepLast,
    Verified,
    NotVerified,
    BackToList,
    Unreadable,
    Piao,
    PiaoAsk,
    OtherWon,
    NoPiao,
    PiaoEachHand,
    SignedIn,
    Connecting,
    OfflinePlay,
    Reconnect,
    NoKeyStore,
    NoRatingYet,
    Queueing,
    Cancel,
    JoiningTable,
    TableLost,
    WallFair,
    WallUnfair,
    QueueFailed,
    RoomCode,
    OpenRoom,
    JoinRoom,
    DeleteDigit,
    LinkDevices,
    ShowLinkCode,
    ShowLinkHelp,
    TypeLinkHelp,
    LinkJoin,
    Linking,
    BadLinkCode,
    LinkInUse,
    LinkOffline,
    People,
    RoomTitle,
    Tournaments,
    TournamentOut,
    TournamentFinished,
    TournamentCancelled,
    TournamentBye,
    TournamentWaiting,
    ServerUnreachable,
    NoTournaments,
    RoundCommitment,
    TablePoints,
    Points,
    MyPlace,
    SignUp,
    NextTable,
    VerifyWalls,
    Refresh,
    SigningUp,
    InPlay,
    WallRound,
}

impl Text {
    /// The text in `lang`.
    pub fn get(self, lang: Lang) -> &'static str {
        let (zh, en) = self.both();
        match lang {
            Lang::ZhCn => zh,
            Lang::En => en,
        }
    }

    fn both(self) -> (&'static str, &'static str) {
        use Text::*;
        match self {
            AppName => ("桐城麻将", "Tongcheng Mahjong"),
            PlayBots => ("单机对战", "Play vs bots"),
            QuickMatch => ("快速匹配", "Quick match"),
            RankedMatch => ("排位赛", "Ranked match"),
            FriendsRoom => ("好友房", "Friends' room"),
            MyHands => ("我的牌局", "My hands"),
            Settings => ("设置", "Settings"),
            ContinueMatch => ("继续牌局", "Continue match"),
            NewMatch => ("新牌局", "New match"),
            RuleSet => ("玩法", "Rules"),
            BotLevel => ("电脑水平", "Bot level"),
            Clock => ("计时", "Clock"),
            Start => ("开始", "Start"),
            Back => ("返回", "Back"),
            Chow => ("吃", "Chow"),
            Pung => ("碰", "Pung"),
            Kong => ("杠", "Kong"),
            Win => ("胡", "Win"),
            Pass => ("过", "Pass"),
            Hint => ("提示", "Hint"),
            AutoPlay => ("托管", "Auto-play"),
            Result => ("结算", "Result"),
            NextHand => ("下一局", "Next hand"),
            MatchOver => ("本场结束", "Match over"),
            Home => ("大厅", "Home"),
            Language => ("语言", "Language"),
            Sound => ("音效", "Sound"),
            On => ("开", "On"),
            Off => ("关", "Off"),
            YourTurn => ("轮到你出牌", "Your turn"),
            WaitingFor => ("等待", "Waiting for"),
            WallLeft => ("余牌", "Wall"),
            Wild => ("财神", "Wild"),
            Draw => ("荒牌", "Draw: the wall ran out"),
            SelfDrawn => ("自摸", "Self-drawn"),
            OnDiscard => ("点炮", "On a discard"),
            YouWin => ("你胡了", "You win"),
            Wins => ("胡了", "wins"),
            Payments => ("输赢", "Payments"),
            ChooseChow => ("选择吃法", "Choose a chow"),
            HistorySetAside => (
                "牌局记录文件无法读取，已另存一份并新建记录",
                "The hand history could not be read: it was kept aside and a new one begun",
            ),
            NotYetOnline => (
                "登录后可以快速匹配和开好友房",
                "Sign in for a quick match or a friends' room",
            ),
            Queueing => ("正在匹配牌桌…", "Finding a table…"),
            Cancel => ("取消", "Cancel"),
            JoiningTable => ("正在入座…", "Taking your seat…"),
            TableLost => ("连接断开，正在重连…", "Connection lost, reconnecting…"),
            WallFair => (
                "牌墙已验证：这一局的牌不是服务器挑的",
                "Wall verified: the server could not choose this hand's tiles",
            ),
            WallUnfair => ("牌墙未通过验证", "This hand's wall does NOT verify"),
            QueueFailed => ("没有匹配到牌桌", "No table found"),
            RoomCode => ("房间号", "Room code"),
            OpenRoom => ("开房", "Open a room"),
            JoinRoom => ("加入房间", "Join the room"),
            DeleteDigit => ("删除", "Delete"),
            LinkDevices => ("关联设备", "Link devices"),
            ShowLinkCode => ("显示关联码", "Show a link code"),
            ShowLinkHelp => (
                "在本机显示关联码，到另一台设备上输入，它就用本机的账号玩",
                "Show a code here and type it on your other device: it then plays as this account",
            ),
            TypeLinkHelp => (
                "输入另一台设备显示的关联码，本机就用那个账号玩（本机新建的空账号不再使用）",
                "Type the code your other device shows: this one then plays as that account (the empty account it began with is left)",
            ),
            LinkJoin => ("关联", "Link"),
            Linking => ("正在关联…", "Linking…"),
            BadLinkCode => (
                "关联码无效、已用过或已过期，请在另一台设备上重新显示",
                "That code is wrong, used or expired: show a new one on the other device",
            ),
            LinkInUse => (
                "本机的账号已有牌局、排位或其他设备，不能再关联到别的账号",
                "This device's account already has hands, ratings or other devices: it cannot join another",
            ),
            LinkOffline => (
                "联网并登录后才能关联",
                "Link devices once online and signed in",
            ),
            People => ("人数", "People"),
            RoomTitle => ("房间", "Room"),
            Tournaments => ("比赛", "Tournaments"),
            TournamentOut => (
                "你已出局，比赛还在进行",
                "You are out; the tournament plays on",
            ),
            TournamentFinished => ("比赛已结束", "Finished"),
            TournamentCancelled => ("比赛已取消", "Cancelled"),
            TournamentBye => (
                "本轮轮空，等待下一轮",
                "A bye this round: waiting for the next",
            ),
            TournamentWaiting => ("等待本轮开桌…", "Waiting for the round's tables…"),
            ServerUnreachable => ("连不上服务器", "The server cannot be reached"),
            NoTournaments => ("现在没有比赛", "No tournaments now"),
            RoundCommitment => ("本轮承诺", "Round commitment"),
            TablePoints => ("名次分", "table points"),
            Points => ("分", "points"),
            MyPlace => ("我的名次", "My place"),
            SignUp => ("报名", "Sign up"),
            NextTable => ("下一桌", "Next table"),
            VerifyWalls => ("验证牌墙", "Verify the walls"),
            Refresh => ("刷新", "Refresh"),
            SigningUp => ("报名中", "Signing up"),
            InPlay => ("进行中", "In play"),
            WallRound => (
                "本局已核对；牌墙在本轮结束后按赛前承诺验证",
                "Hand checked; its wall is verified against the round's commitment when the round ends",
            ),
            You => ("你", "You"),
            Dealer => ("庄", "Dealer"),
            East => ("东家", "East"),
            South => ("南家", "South"),
            West => ("西家", "West"),
            North => ("北家", "North"),
            Statistics => ("统计", "Statistics"),
            Sync => ("同步", "Sync"),
            SyncNow => ("立即同步", "Sync now"),
            Syncing => ("同步中…", "Syncing…"),
            SyncFailed => ("同步失败", "Sync failed"),
            SyncNeedsLogin => ("登录后才能同步", "Log in to sync"),
            AllUploaded => ("全部已上传", "Everything is up"),
            Refused => ("被拒绝", "Refused"),
            AllRules => ("全部玩法", "All rules"),
            HandsPlayed => ("局数", "Hands"),
            WinRate => ("和牌率", "Win rate"),
            SelfDrawnWins => ("自摸", "Self-drawn"),
            DealIns => ("点炮", "Dealt in"),
            Draws => ("荒牌", "Draws"),
            AveragePoints => ("场均得分", "Points per hand"),
            NoHandsYet => (
                "还没有牌局：打完一局就会出现在这里",
                "No hands yet: a finished hand shows up here",
            ),
            PreviousPage => ("上一页", "Previous"),
            NextPage => ("下一页", "Next"),
            Loading => ("读取中…", "Loading…"),
            Replay => ("回放", "Replay"),
            StepFirst => ("开局", "Start"),
            StepBack => ("上一步", "Back a move"),
            StepForward => ("下一步", "Next move"),
            StepLast => ("终局", "End"),
            Verified => (
                "牌谱已验证：重放得到同样的结果",
                "Verified: the replay gives the same result",
            ),
            NotVerified => ("牌谱未通过验证", "Not verified"),
            BackToList => ("返回列表", "Back to the list"),
            Unreadable => ("这一局读不出来", "This hand cannot be read"),
            OtherWon => ("他家胡", "Another seat won"),
            NoPiao => ("不飘", "None"),
            PiaoEachHand => ("每局选飘", "Chosen each hand"),
            SignedIn => ("已登录", "Signed in"),
            Connecting => ("正在连接服务器…", "Connecting to the server…"),
            OfflinePlay => (
                "未连接服务器：单机对战照常可玩",
                "Not connected: playing against bots works offline",
            ),
            Reconnect => ("重新连接", "Reconnect"),
            NoKeyStore => (
                "这个浏览器不能保存登录密钥：只能单机对战",
                "This browser cannot keep a login key: bots only",
            ),
            NoRatingYet => ("还没有排位成绩", "No ranked results yet"),
            Piao => ("飘", "Float (飘)"),
            PiaoAsk => (
                "本局飘几分？（飘分翻倍计入输赢）",
                "Float how much this hand? (it raises your stakes)",
            ),
        }
    }
}

/// A tile's name as players say it and screen readers read it: 一万…九万, 一条…九条,
/// 一饼…九饼, 东 南 西 北 中 发 白, 春 夏 秋 冬 梅 兰 竹 菊 (or the English names).
pub fn tile_name(tile: Tile, lang: Lang) -> String {
    match lang {
        Lang::En => tile.name_en(),
        Lang::ZhCn => tile.short_name_zh().to_string(),
    }
}

/// A preset's name for players.
pub fn preset_name(preset: &str, lang: Lang) -> String {
    // A preset with 飘 chosen each hand (`RuleSet::with_piao_each_hand`).
    if let Some(base) = preset.strip_suffix("-piao") {
        let name = preset_name(base, lang);
        if name != base {
            return match lang {
                Lang::ZhCn => format!("{name}（飘）"),
                Lang::En => format!("{name}, 飘 each hand"),
            };
        }
    }
    let (zh, en) = match preset {
        "guobiao" => ("国标麻将", "Chinese Official"),
        "hangzhou" => ("杭州麻将", "Hangzhou"),
        "hangzhou-mil" => ("杭州麻将（军）", "Hangzhou (military)"),
        "tongcheng-dianpao" => ("桐城麻将·点炮", "Tongcheng, discard wins"),
        "tongcheng-paofeng" => ("桐城麻将·跑风", "Tongcheng, 跑风"),
        other => return other.to_string(),
    };
    match lang {
        Lang::ZhCn => zh.into(),
        Lang::En => en.into(),
    }
}

pub fn level_name(level: Level, lang: Lang) -> &'static str {
    match (level, lang) {
        (Level::Easy, Lang::ZhCn) => "简单",
        (Level::Normal, Lang::ZhCn) => "普通",
        (Level::Hard, Lang::ZhCn) => "困难",
        (Level::Easy, Lang::En) => "Easy",
        (Level::Normal, Lang::En) => "Normal",
        (Level::Hard, Lang::En) => "Hard",
    }
}

pub fn clock_name(clock: Clock, lang: Lang) -> &'static str {
    match (clock, lang) {
        (Clock::Off, Lang::ZhCn) => "不计时",
        (Clock::Relaxed, Lang::ZhCn) => "宽松",
        (Clock::Match, Lang::ZhCn) => "比赛",
        (Clock::Off, Lang::En) => "Off",
        (Clock::Relaxed, Lang::En) => "Relaxed",
        (Clock::Match, Lang::En) => "Match",
    }
}

/// A seat's name seen from the player's seat: 你 for his own, else the seat's wind.
pub fn seat_name(wind_index: usize, is_you: bool, lang: Lang) -> &'static str {
    if is_you {
        return Text::You.get(lang);
    }
    [Text::East, Text::South, Text::West, Text::North][wind_index % 4].get(lang)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_have_the_names_players_use() {
        let name = |code: &str| tile_name(code.parse().unwrap(), Lang::ZhCn);
        assert_eq!(name("1m"), "一万");
        assert_eq!(name("9s"), "九条");
        assert_eq!(name("5p"), "五饼");
        let honors: Vec<String> = (1..=7).map(|r| name(&format!("{r}z"))).collect();
        assert_eq!(honors, ["东", "南", "西", "北", "白", "发", "中"]);
        assert_eq!(name("1f"), "春");
        assert_eq!(
            tile_name("1m".parse().unwrap(), Lang::En),
            "1 of Characters"
        );
    }

    #[test]
    fn every_text_has_both_languages() {
        for t in [Text::PlayBots, Text::Result, Text::Chow, Text::Pass] {
            assert!(!t.get(Lang::ZhCn).is_ascii(), "{t:?}");
            assert!(t.get(Lang::En).is_ascii(), "{t:?}");
        }
        assert_eq!(Text::Result.get(Lang::default()), "结算");
    }
}
