package search

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/search/lexicon"
)

// meaningEntries is a small directory for the tests of search by meaning:
// sentences, concepts, other languages.
func meaningEntries() []*mcpdir.Entry {
	return append(testEntries(),
		entry("aqi-now", "Real-time AQI and PM2.5 readings for any city", 0),
		entry("recipe-box-mcp", "Search recipes by ingredient and plan meals", 0),
		entry("cookware-shop", "Sell cookware in your online shop", 0),
		entry("a-stock-mcp", "A股实时行情与股票数据查询", 0),
		entry("kabuka-mcp", "日本の株価を調べるMCPサーバー", 0),
		entry("tianqi-mcp", "全国天气预报查询服务", 0),
		entry("boersen-mcp", "Aktienkurse und Börsendaten für deutsche Unternehmen", 0),
		entry("die-roller", "Roll a die for tabletop games", 0),
		entry("garmin-connect-mcp", "Garmin Connect activities, heart rate and sleep data", 0),
		entry("github-pr-digest", "Summarise GitHub pull requests and post digests", 0),
		entry("image-upscaler", "Upscale, denoise and retouch images with AI models", 0),
		entry("url-threat-check", "Look up URLs and domains in VirusTotal and threat intelligence feeds", 0),
		entry("budget-tracker", "Track spending and budgets across your bank accounts", 0),
		entry("grocery-list-mcp", "Shared shopping list for groceries", 0),
		entry("minecraft-status", "Check whether a Minecraft server is up and who is playing on it", 0),
		entry("census-stats", "US Census population and demographics data", 0),
	)
}

func newMeaningIndex(t *testing.T) *Index { return indexOf(meaningEntries()) }

// wantFirst checks the first hit of each query.
func wantFirst(t *testing.T, x *Index, cases []struct{ query, first string }) {
	t.Helper()
	for _, tc := range cases {
		res := x.Search(tc.query, 10)
		if len(res.Hits) == 0 || res.Hits[0].Entry.Name != tc.first {
			t.Errorf("%q: got %v, want %s first", tc.query, names(res), tc.first)
		}
	}
}

// wantNot checks that each query's answer lacks an entry.
func wantNot(t *testing.T, x *Index, cases []struct{ query, not string }) {
	t.Helper()
	for _, tc := range cases {
		if got := names(x.Search(tc.query, 10)); slices.Contains(got, tc.not) {
			t.Errorf("%s: %v, want no %s", tc.query, got, tc.not)
		}
	}
}

func TestSentencesFindWhatTheyMean(t *testing.T) {
	wantFirst(t, newMeaningIndex(t), []struct{ query, first string }{
		// No entry says "safe", "run" or "breathe": the concept does.
		{"is the air safe for a run outside today", "aqi-now"},
		{"what can I cook with what is left in my kitchen", "recipe-box-mcp"},
		// A word the entries do not use does not empty the answer.
		{"can you tell me the weather forecast for my picnic tomorrow", "weather-mcp"},
		// Question and request phrasing carry no weight.
		{"is there an MCP server that can post messages to slack?", "slack-mcp"},
		{"help me find a tool that turns markdown into a pdf", "md-to-pdf-mcp"},
		{"I need something to convert pdf into markdown", "pdf2md-mcp"},
		// Everyday words for a need whose servers use a technical term.
		{"my photos are blurry, make them sharp", "image-upscaler"},
		{"is this website legit", "url-threat-check"},
		// Everyday words for an outcome, not for the technology that gets it.
		{"we ran out of laundry detergent again", "grocery-list-mcp"},
		// A question about the asker's own things is no question about the world.
		{"where did all my money go last month", "budget-tracker"},
		// A pasted task of 30 words.
		{"Every morning, look through the open pull requests in our GitHub repository, summarise what changed " +
			"in each of them and post the digest to the engineering team channel so that reviewers know", "github-pr-digest"},
	})
}

// "How many people" asks for a population only where people live: the
// players on a game server are no census.
func TestHowManyPeopleIsNoCensus(t *testing.T) {
	res := newMeaningIndex(t).Search("is there a tool to check if my Minecraft server is online and how many people are on?", 10)
	if got := names(res); len(got) == 0 || got[0] != "minecraft-status" || slices.Contains(got, "census-stats") {
		t.Errorf("got %v, want minecraft-status first and no census server", got)
	}
}

func TestNonsenseStillAnswersNothing(t *testing.T) {
	x := newMeaningIndex(t)
	for _, q := range []string{
		"asdfgh qwerty zxcvb",
		"zxqv plorbnik",
		"what is the height of mount everest",
		"asdfgh qwerty zxcvb uiopl hjkl vbnm postgres",
	} {
		if res := x.Search(q, 10); res.Total != 0 {
			t.Errorf("%q matched %v", q, names(res))
		}
	}
}

func TestOtherLanguages(t *testing.T) {
	x := newMeaningIndex(t)
	wantFirst(t, x, []struct{ query, first string }{
		// Chinese: character pairs on both sides (股票 in 查询股票价格).
		{"查询股票价格", "a-stock-mcp"},
		{"股票", "a-stock-mcp"},
		// Japanese: 株価 in 株価を調べる.
		{"株価を調べる", "kabuka-mcp"},
		// German, in its own language, through its stem.
		{"Aktienkurs", "boersen-mcp"},
		{"börsendaten", "boersen-mcp"},
	})
	// The gloss: an English query finds an entry written in Chinese, and a
	// Chinese one an entry written in English.
	if res := x.Search("weather forecast", 10); !slices.Contains(names(res), "tianqi-mcp") {
		t.Errorf("weather forecast: %v, want tianqi-mcp among them", names(res))
	}
	if res := x.Search("天气", 10); len(res.Hits) < 2 || !slices.Contains(names(res)[:2], "weather-mcp") ||
		!slices.Contains(names(res)[:2], "tianqi-mcp") {
		t.Errorf("天气: %v, want tianqi-mcp and weather-mcp first", names(res))
	}
	// German stop words match nothing: not the dice roller through "die",
	// not the German entry through "und".
	res := x.Search("die Aktienkurse und die Wettervorhersage", 10)
	if slices.Contains(names(res), "die-roller") {
		t.Errorf("a German query matched through 'die': %v", names(res))
	}
	if res := x.Search("und die der", 10); res.Total != 0 {
		t.Errorf("German stop words matched %v", names(res))
	}
	// An English query still finds the dice roller.
	if res := x.Search("roll a die", 10); len(res.Hits) == 0 || res.Hits[0].Entry.Name != "die-roller" {
		t.Errorf("roll a die: %v", names(res))
	}
}

// TestElidedArticlesAreStopWords checks that the article of a French or
// Italian word it is elided onto ("l'altra", "d'accord") is a stop word of
// the query's language, not a word: on the packages corpus, where an
// entry is named for "l", the Italian "calcoli simbolici con SageMath …
// tra una domanda e l'altra" weighed a word none of its answers has, and
// answered nothing.
func TestElidedArticlesAreStopWords(t *testing.T) {
	x := indexOf([]*mcpdir.Entry{
		entry("sagemath-mcp", "Stateful SageMath computations", 10),
		entry("l", "L, a language", 10),
	})
	for _, q := range []string{
		"eseguire calcoli simbolici con SageMath mantenendo la sessione aperta tra una domanda e l'altra",
		"calculer avec SageMath et garder l'historique de la session",
	} {
		s := x.searcher()
		s.parse(x, q)
		for _, c := range s.parser.Clauses {
			if c.Word == "l" {
				t.Errorf("%q: %q is a word of it", q, c.Word)
			}
		}
		x.searchers.Put(s)
	}
}

// TestEverydayForeignWordsAreGlossed checks a few everyday words of
// German and Italian the gloss gives English words: "in natürlicher
// Sprache" is in natural language, "calcoli simbolici" symbolic
// calculations.
func TestEverydayForeignWordsAreGlossed(t *testing.T) {
	x := indexOf([]*mcpdir.Entry{
		entry("nl-query", "Ask questions of your data in natural language", 10),
		entry("sym-calc", "Symbolic calculations and algebra", 10),
		entry("weather-now", "Current weather for any city", 10),
		entry("old-papers", "Search digitized historical newspapers", 10),
		entry("log-search", "Search and analyze application logs", 100),
		entry("risk-portfolio", "Portfolio risk analytics for investors", 10),
		entry("page-fetch", "Fetch a web page and read it as Markdown", 10),
		entry("doc-search", "Search your documents", 10),
		entry("web-search", "Search the web and the news", 10),
		entry("page-shots", "Take a screenshot of any page", 10),
	})
	wantFirst(t, x, []struct{ query, first string }{
		{"Daten in natürlicher Sprache abfragen", "nl-query"},
		{"eseguire calcoli simbolici", "sym-calc"},
		// "journaux" are newspapers before they are logs
		{"chercher des vieux journaux numérisés", "old-papers"},
		{"analizar el riesgo de mi cartera", "risk-portfolio"},
		// "ウェブ" and "웹" are the web, "페이지" a page
		{"ウェブを検索", "web-search"},
		{"웹 페이지 가져오기", "page-fetch"},
		// a phrase read without its language's stop words, as a query in
		// that language is: "capture d'écran" in a French sentence
		{"prendre une capture d'écran", "page-shots"},
		{"tomar una captura de pantalla", "page-shots"},
	})
}

// TestForeignWordsAreNotEnglishNames checks that a word of a query in
// another language is matched as a word of that language (its stem, its
// English words), never as the beginning or a near spelling of an English
// name: "gestionar facturas" is not getsonar.
func TestForeignWordsAreNotEnglishNames(t *testing.T) {
	x := indexOf([]*mcpdir.Entry{
		entry("getsonar-mcp", "SonarQube code quality reports", 0),
		entry("ordenarium-mcp", "Ordenarium orchestration runtime", 0),
		entry("facturas-mcp", "Crear y enviar facturas electrónicas", 0),
		entry("invoice-mcp", "Create and send invoices to your customers", 0),
		entry("kalender-mcp", "Termine im Kalender anlegen und verschieben", 0),
		entry("calendar-mcp", "Manage Google Calendar events", 0),
	})
	res := x.Search("gestionar facturas", 10)
	if slices.Contains(names(res), "getsonar-mcp") {
		t.Errorf("gestionar facturas: %v, matched getsonar as a near spelling", names(res))
	}
	if len(res.Hits) == 0 || res.Hits[0].Entry.Name != "facturas-mcp" {
		t.Errorf("gestionar facturas: %v, want facturas-mcp first", names(res))
	}
	// The gloss finds the English entry too ("facturas": invoices).
	if !slices.Contains(names(res), "invoice-mcp") {
		t.Errorf("gestionar facturas: %v, want invoice-mcp among them", names(res))
	}
	// "ordenar" (to sort) is no word of the gloss, and the beginning of an
	// English name: in a Spanish query it is not that name.
	if res := x.Search("ordenar mis facturas", 10); slices.Contains(names(res), "ordenarium-mcp") {
		t.Errorf("ordenar mis facturas: %v, matched ordenarium by its prefix", names(res))
	}
	// Everyday German, without a stop word to tell it by.
	res = x.Search("Kalender verwalten", 10)
	if len(res.Hits) < 2 || !slices.Contains(names(res)[:2], "kalender-mcp") || !slices.Contains(names(res)[:2], "calendar-mcp") {
		t.Errorf("Kalender verwalten: %v, want kalender-mcp and calendar-mcp first", names(res))
	}
}

// TestEnglishNamesAreNotForeignWords: a name an English entry has is not
// the foreign word its stem spells, in the entry or in a query ("Sonos" is
// no Portuguese "sono", sleep), while a Portuguese query still finds the
// English entries of its words.
func TestEnglishNamesAreNotForeignWords(t *testing.T) {
	x := indexOf([]*mcpdir.Entry{
		entry("sonos-py", "Local Sonos controller: CLI and MCP server, no cloud required", 0),
		entry("sleep-tracker-mcp", "Log your sleep and see the stats of your nights", 0),
		entry("oura-mcp", "Oura Ring sleep, readiness and heart rate data", 0),
	})
	wantNot(t, x, []struct{ query, not string }{
		{"sleep", "sonos-py"},
		{"how did I sleep this week", "sonos-py"},
		{"sonos", "sleep-tracker-mcp"},
		{"sonos", "oura-mcp"},
	})
	if got := names(x.Search("meu sono", 10)); !slices.Contains(got, "sleep-tracker-mcp") {
		t.Errorf("meu sono: %v, want sleep-tracker-mcp among them", got)
	}
}

// TestForeignStemsAreNotEnglishWords: a foreign word's stem that is an
// everyday English word is not that word: the German stem of "München" is
// "munch", which Rug Munch's server is named for.
func TestForeignStemsAreNotEnglishWords(t *testing.T) {
	x := indexOf([]*mcpdir.Entry{
		entry("rug-munch-mcp", "Rug Munch Intelligence: crypto rug pull checks", 0),
		entry("bahn-mcp", "Zugverbindungen und Fahrpläne der Deutschen Bahn", 0),
	})
	got := names(x.Search("Zugverbindungen von München nach Berlin heraussuchen", 10))
	if slices.Contains(got, "rug-munch-mcp") || !slices.Contains(got, "bahn-mcp") {
		t.Errorf("Zugverbindungen von München nach Berlin heraussuchen: %v, want bahn-mcp and no rug-munch-mcp", got)
	}
}

// TestTempoIsNoWeather checks, on the packages corpus, that "tempo" asks
// for no weather servers: it is Italian and Portuguese for the weather,
// but in English it is a song's pace ("tempo reale" and "tempo real", real
// time, are no weather either). "analyze an audio file tempo and key"
// answered five weather servers in its top ten. The weather asked for in
// those languages names it with more words ("che tempo fa domani"). German
// "regen", rain, is glossed in German queries alone: "regen the api
// client" answered weather servers.
func TestTempoIsNoWeather(t *testing.T) {
	x := loadIndex(t)
	r := x.Search("analyze an audio file tempo and key", 10)
	if len(r.Hits) == 0 {
		t.Fatal("analyze an audio file tempo and key: no answer")
	}
	noneSays(t, "analyze an audio file tempo and key", r, "weather")
	// Nor is "regen", German for rain, when the query is in English.
	const regen = "regen the api client after a schema change"
	noneSays(t, regen, x.Search(regen, 10), "weather")
	// The weather said in Italian or Portuguese is still the weather.
	for _, q := range []string{"che tempo fa domani a Roma", "o tempo em Lisboa amanhã"} {
		if r := x.Search(q, 10); len(r.Hits) == 0 || !saysOneOf(r.Hits[0], "weather") {
			t.Errorf("%s: %v, want a weather server first", q, names(r))
		}
	}
}

// TestFalseFriendsAreEnglishInEnglish: a foreign word that is also an
// everyday English word ("devise", French for currency; "Roman", French
// for a novel) is glossed only in a query in its language. "devise a plan
// for my week" answered currency converters, "Roman history" novels.
func TestFalseFriendsAreEnglishInEnglish(t *testing.T) {
	x := indexOf([]*mcpdir.Entry{
		entry("currency-mcp", "Convert currencies at today's exchange rates", 0),
		entry("week-planner-mcp", "Plan your week: goals, time blocks and a daily plan", 0),
		entry("novel-mcp", "Find novels and authors, and keep a reading list", 0),
		entry("history-mcp", "Ancient history: empires, battles and timelines", 0),
	})
	for _, tc := range []struct{ query, want, not string }{
		{"devise a plan for my week", "week-planner-mcp", "currency-mcp"},
		{"roman empire history", "history-mcp", "novel-mcp"},
		{"convertir des euros en devises", "currency-mcp", ""},
		{"recommande-moi un roman policier", "novel-mcp", ""},
	} {
		got := names(x.Search(tc.query, 10))
		if len(got) == 0 || got[0] != tc.want || tc.not != "" && slices.Contains(got, tc.not) {
			t.Errorf("%s: %v, want %s first and no %q", tc.query, got, tc.want, tc.not)
		}
	}
}

// TestMalwareInfectionIsNoIllness checks, on the packages corpus, that an
// infection of malware asks for security servers: "infection" is in no
// entry, so alone it stands for the medical concept, and "malware
// infection" answered medical servers, "dog-eye-diagnosis" first.
func TestMalwareInfectionIsNoIllness(t *testing.T) {
	x := loadIndex(t)
	for _, q := range []string{"malware infection", "is my computer infected with malware"} {
		r := x.Search(q, 10)
		if len(r.Hits) == 0 {
			t.Fatalf("%s: no answer", q)
		}
		if !saysOneOf(r.Hits[0], "secur", "threat", "malware") {
			t.Errorf("%s: %v, want a security server first", q, names(r))
		}
		noneSays(t, q, r, "medical", "diagnos")
	}
}

// TestAFantasyNovelIsNoFantasyLeague checks, on the packages corpus,
// that fantasy fiction asks for books: "fantasy" alone names fantasy
// sports, and "write a fantasy novel" ranked two fantasy league servers
// first.
func TestAFantasyNovelIsNoFantasyLeague(t *testing.T) {
	x := loadIndex(t)
	for _, q := range []string{"write a fantasy novel", "recommend fantasy books"} {
		r := x.Search(q, 10)
		if len(r.Hits) == 0 {
			t.Fatalf("%s: no answer", q)
		}
		noneSays(t, q, r, "sport", "football", "league", "nba", "espn")
	}
}

// TestAPowerPlantIsEnergy checks, on the packages corpus, that a power
// plant asks for energy data, not for plants: "power plant emissions data"
// ranked plant genomics and plant imaging first.
func TestAPowerPlantIsEnergy(t *testing.T) {
	x := loadIndex(t)
	r := x.Search("power plant emissions data", 10)
	if len(r.Hits) == 0 {
		t.Fatal("power plant emissions data: no answer")
	}
	if !saysOneOf(r.Hits[0], "electric", "energy", "emission") {
		t.Errorf("power plant emissions data: %v, want an energy server first", names(r))
	}
}

// TestNoiseCancellingIsNoFlight checks, on the packages corpus, that a
// cancellation alone asks for no flight tracking: "noise cancelling
// headphones review" answered five flight trackers. A cancelled flight is
// still one.
func TestNoiseCancellingIsNoFlight(t *testing.T) {
	x := loadIndex(t)
	const noise = "noise cancelling headphones review"
	noneSays(t, noise, x.Search(noise, 10), "flight", "aviation")
	if r := x.Search("my flight was canceled", 10); len(r.Hits) == 0 || !saysOneOf(r.Hits[0], "flight") {
		t.Errorf("my flight was canceled: %v, want a flight tracker first", names(r))
	}
}

// TestSickOfIsNoIllness checks, on the packages corpus, that being sick
// of a chore is no illness: "sick of manual data entry, automate it"
// answered medical servers. Being sick still is one.
func TestSickOfIsNoIllness(t *testing.T) {
	x := loadIndex(t)
	const chore = "sick of manual data entry, automate it"
	noneSays(t, chore, x.Search(chore, 10), "medical", "diagnos")
	if r := x.Search("my kid is sick with a fever", 10); len(r.Hits) == 0 {
		t.Error("my kid is sick with a fever: no answer")
	}
}

// TestAnEnglishEntryWinsTiesForEnglish: of entries a query matches
// equally, one written in English comes first for a query in English, as
// one written in the query's language does for any other. In the corpus,
// nine currency servers tie on the concept of "pounds in yen", and Blender
// FX's Korean brief ("FX" of visual effects) came first by its name.
func TestAnEnglishEntryWinsTiesForEnglish(t *testing.T) {
	x := loadIndex(t)
	r := x.Search("how much is 250 pounds in japanese yen today", 10)
	if i := rankOf(r, "blender-fx-mcp"); i >= 0 && i < 8 {
		t.Errorf("pounds in yen: %v, want the Korean blender-fx-mcp below the English servers it ties with", names(r))
	}
}

// TestPluggingInACarIsCharging checks, on the packages corpus, that a car
// plugged in asks for charging stations, not for the car listings that
// "electric car" alone would bring.
func TestPluggingInACarIsCharging(t *testing.T) {
	x := loadIndex(t)
	r := x.Search("where can I plug in my electric car around here", 10)
	if len(r.Hits) == 0 || !strings.Contains(strings.ToLower(r.Hits[0].Entry.Brief), "charging station") {
		t.Errorf("plug in my electric car: %v, want a charging-station finder first", names(r))
	}
}

// TestSomethingSimilarToWatchIsAFilm checks, on the packages corpus, that
// "similar to" a film asks for no similarity search: semantic-search
// servers came first for "something good to watch tonight, similar to
// Knives Out".
func TestSomethingSimilarToWatchIsAFilm(t *testing.T) {
	x := loadIndex(t)
	r := x.Search("something good to watch tonight, similar to Knives Out", 10)
	if len(r.Hits) == 0 {
		t.Fatal("something to watch: nothing")
	}
	if b := strings.ToLower(r.Hits[0].Entry.Brief); !strings.Contains(b, "movie") && !strings.Contains(b, "streaming") {
		t.Errorf("something to watch: %v, want a film or streaming server first", names(r))
	}
}

// TestWhoOwesMeIsSharedExpenses checks, on the packages corpus, that money
// friends owe asks for the bill splitters: Splitwise was not in the top 10,
// below the personal-finance trackers.
func TestWhoOwesMeIsSharedExpenses(t *testing.T) {
	x := loadIndex(t)
	r := x.Search("who still owes me money from the cabin weekend, I totally lost track", 10)
	if !slices.ContainsFunc(r.Hits, func(h mcpdir.Hit) bool { return strings.Contains(h.Entry.Name, "splitwise") }) {
		t.Errorf("who owes me money: %v, want a Splitwise server in the top 10", names(r))
	}
}

// TestACountrysMoneyIsItsCurrency checks, on the packages corpus, that
// "japanese money" asks for exchange rates as "yen" does: the question
// answered nothing.
func TestACountrysMoneyIsItsCurrency(t *testing.T) {
	x := loadIndex(t)
	r := x.Search("how much is 200 dollars in japanese money", 10)
	if len(r.Hits) < 5 {
		t.Fatalf("dollars in japanese money: %v", names(r))
	}
	for _, h := range r.Hits[:5] {
		if b := strings.ToLower(h.Entry.Brief); !strings.Contains(b, "currenc") && !strings.Contains(b, "exchange rate") {
			t.Errorf("dollars in japanese money: %s (%q) in the top 5, want currency servers", h.Entry.Name, h.Entry.Brief)
		}
	}
}

// TestSetPhrasesAreNoNeed: the words of a set phrase that only pads a
// sentence ("so far", "right now") are not searched for: "far" is not the
// Federal Acquisition Regulations.
func TestSetPhrasesAreNoNeed(t *testing.T) {
	x := indexOf([]*mcpdir.Entry{
		entry("calorie-log-mcp", "Log the calories of your meals and see your daily total", 0),
		entry("far-search", "Federal Acquisition Regulations (FAR) search", 0),
		entry("now-playing", "See what is playing right now on your speakers", 0),
	})
	cases := []struct{ query, not string }{
		{"how many calories have I eaten today so far", "far-search"},
		{"log the calories of my lunch right now", "now-playing"},
	}
	wantNot(t, x, cases)
	for _, tc := range cases {
		if got := names(x.Search(tc.query, 10)); !slices.Contains(got, "calorie-log-mcp") {
			t.Errorf("%s: %v, want calorie-log-mcp", tc.query, got)
		}
	}
}

// TestKoreanAsCharacterPairs checks that Korean is searched as Chinese and
// Japanese are, so that a word meets its forms with particles.
func TestKoreanAsCharacterPairs(t *testing.T) {
	x := indexOf([]*mcpdir.Entry{
		entry("nalssi-mcp", "오늘과 내일의 날씨 정보", 0),
		entry("iljeong-mcp", "일정 관리와 회의 예약", 0),
	})
	for q, want := range map[string]string{"날씨는 어때": "nalssi-mcp", "내 일정을 보여줘": "iljeong-mcp"} {
		if res := x.Search(q, 10); len(res.Hits) == 0 || res.Hits[0].Entry.Name != want {
			t.Errorf("%q: %v, want %s first", q, names(res), want)
		}
	}
}

// TestChattyWordsOfALongTaskMatchNamesLess checks that in a pasted task the
// servers named for its everyday words ("launch", "week", "team") do not
// outrank the one for what it asks.
func TestChattyWordsOfALongTaskMatchNamesLess(t *testing.T) {
	x := indexOf([]*mcpdir.Entry{
		entry("launch-week", "Planner for product events", 0),
		entry("team-room", "Chat rooms", 0),
		entry("kicad-mcp", "KiCad tools", 0),
	})
	task := "Hi! With the launch next week our team is swamped. Please open the board in KiCad and check it " +
		"for us before the launch, and tell the team. Thanks!"
	if res := x.Search(task, 10); len(res.Hits) == 0 || res.Hits[0].Entry.Name != "kicad-mcp" {
		t.Errorf("%v, want kicad-mcp first", names(res))
	}
}

// TestSensedWordsAreEverydayWords: a word of everyday English that names
// a concept with another of the query's is meant in the concept's sense
// ("key" of "api key"); a specific word means what it says with any
// neighbour ("ssh", "linux", "api"). An entry that has the sensed word and
// a specific word of its concept uses them together, in the query's sense,
// and ranks as if it were of the concept (issue 34: the multi-constraint
// queries "web search … no API key" lost their keyless search servers).
func TestSensedWordsAreEverydayWords(t *testing.T) {
	x := indexOf([]*mcpdir.Entry{
		entry("keyless-search", "Web search with no API key", 0),
		entry("search-plus", "Web search results for agents", 0),
		entry("ssh-exec", "Run commands on remote servers over SSH", 0),
	})
	sensed := func(q string) map[string]bool {
		s := x.searcher()
		defer x.searchers.Put(s)
		s.parse(x, q)
		m := map[string]bool{}
		for _, c := range s.parser.Clauses {
			m[c.Word] = c.Sensed
		}
		return m
	}
	if m := sensed("ssh into linux servers"); m["ssh"] || m["linux"] {
		t.Errorf("ssh into linux servers: sensed %v, want ssh and linux as written", m)
	}
	if m := sensed("web search for my agent that needs no api key"); !m["key"] || m["api"] {
		t.Errorf("… no api key: sensed %v, want key sensed and api not", m)
	}
	if got := names(x.Search("web search for my agent that needs no api key", 10)); len(got) == 0 || got[0] != "keyless-search" {
		t.Errorf("web search … no api key: %v, want keyless-search first", got)
	}
}

// TestAWordSaidInAPhraseIsMeantAsIt checks that the one word of a phrase
// people ask with that is stop words and that word, said as written, is
// meant in the phrase's sense: "time" of "what is the time in tokyo" is the
// clock's: on the starter directory, ClickUp's time tracking came second,
// at half the time server's score.
func TestAWordSaidInAPhraseIsMeantAsIt(t *testing.T) {
	x := starterIndex(t)
	for _, q := range []string{"what is the time in tokyo", "what time is it in tokyo"} {
		res := x.Search(q, 10)
		if len(res.Hits) == 0 || res.Hits[0].Entry.Name != "io.github.modelcontextprotocol/server-time" {
			t.Fatalf("%q: %v, want the time server first", q, names(res))
		}
		for _, h := range res.Hits[1:] {
			if h.Score > res.Hits[0].Score/3 {
				t.Errorf("%q: %s scores %.3f of the time server's %.3f, want under a third", q, h.Entry.Name, h.Score, res.Hits[0].Score)
			}
		}
	}
}

// TestOneWordOfATermByHowWidespread checks, on the packages corpus, that
// the one word of a term people ask with that is stop words and that word
// stands for the term alone only where few entries have it: "afternoon"
// (of "this afternoon") still asks for calendars in "next Tuesday
// afternoon", and "runs" (of "my runs", in a thousand entries) no longer
// asks for workouts in "speech to text that runs offline".
func TestOneWordOfATermByHowWidespread(t *testing.T) {
	x := loadIndex(t)
	asks := func(query, word, concept string) bool {
		s := x.searcher()
		defer x.searchers.Put(s)
		if !s.parse(x, query) {
			t.Fatalf("%q: nothing to search", query)
		}
		id, ok := x.termIDs[concept]
		if !ok {
			t.Fatalf("no entry is of %s", concept)
		}
		for _, c := range s.parser.Clauses {
			if c.Word == word {
				return slices.ContainsFunc(c.Exps, func(e lexicon.Expansion) bool { return e.Term == id })
			}
		}
		t.Fatalf("%q: no clause of %q", query, word)
		return false
	}
	if !asks("what do I have going on next Tuesday afternoon?", "afternoon", "§calendar") {
		t.Error(`"afternoon" no longer asks for calendars`)
	}
	if asks("speech to text that runs fully offline on my Mac", "runs", "§workouts-fitness") {
		t.Error(`"runs" of software that runs offline asks for workouts`)
	}
}

// TestDeniedWordIsNotSought checks, on the packages corpus, that the word
// a denial denies is not searched for: "email over IMAP and SMTP, not just
// Gmail" answered Gmail servers among the IMAP ones, and "xlsx on Linux
// with no Microsoft Office" Microsoft Office's first. A word many entries
// say "no" of is still sought: "no API key" finds the keyless ones.
func TestDeniedWordIsNotSought(t *testing.T) {
	x := loadIndex(t)
	for _, tc := range []struct {
		query, not, want string
		top              int
	}{
		{"email access that works with any provider over IMAP and SMTP, not just Gmail", "gmail", "imap", 5},
		{"edit xlsx spreadsheets on a Linux box with no Microsoft Office", "microsoft", "", 3},
	} {
		res := x.Search(tc.query, 10)
		if len(res.Hits) < tc.top {
			t.Fatalf("%q: %d hits: %v", tc.query, len(res.Hits), names(res))
		}
		for _, h := range res.Hits[:tc.top] {
			if text := strings.ToLower(h.Entry.Name + " " + h.Entry.Brief); strings.Contains(text, tc.not) || !strings.Contains(text, tc.want) {
				t.Errorf("%q: %s (%q) answers it", tc.query, h.Entry.Name, h.Entry.Brief)
			}
		}
	}
	s := x.searcher()
	defer x.searchers.Put(s)
	s.parse(x, "web search that needs no API key")
	if !slices.ContainsFunc(s.parser.Clauses, func(c lexicon.Clause) bool { return c.Word == "api" }) {
		t.Error(`"no API key" no longer searches for "api"`)
	}
}

// A pasted task is about the product it names, not about what its
// incidental words name: weekdays, a standup and a meeting are calendar
// words, but the task wants the servers of the product it works in.
func TestProductNamedInATask(t *testing.T) {
	x := loadIndex(t)
	for _, tc := range []struct{ query, product string }{
		{"After Tuesday's outage our helpdesk inbox exploded. Go through the Zendesk tickets opened between Monday and " +
			"Thursday, sort them by what went wrong, count the ones about refunds, and write a short summary for " +
			"Friday's standup. Don't reply to or close anything.", "zendesk"},
		{"It's the end of the quarter and our accountant is away until next Wednesday. We keep our books in Xero. " +
			"Please list the bills we still owe suppliers, with their due dates, and tell me the total so I can " +
			"mention it in Monday's meeting. Don't pay or edit anything.", "xero"},
	} {
		res := x.Search(tc.query, 10)
		if len(res.Hits) < 3 {
			t.Fatalf("%q: %d hits: %v", tc.product, len(res.Hits), names(res))
		}
		for _, h := range res.Hits[:3] {
			if !strings.Contains(strings.ToLower(h.Entry.Name+" "+h.Entry.Brief), tc.product) {
				t.Errorf("the task in %s: %s (%q) among the first three: %v", tc.product, h.Entry.Name, h.Entry.Brief, names(res))
			}
		}
	}
}

// A word of small talk ("assistant", "access") is meant where it is a word
// of a term entries use ("Home Assistant", "access reviews"): it is
// searched for there, and dropped elsewhere.
func TestSmallTalkInATermIsMeant(t *testing.T) {
	x := indexOf(append(meaningEntries(),
		entry("home-assistant-mcp", "Control Home Assistant lights, switches and climate", 0),
		entry("access-review-mcp", "Run access reviews and certification campaigns for your apps", 0),
		entry("team-calendar", "Share a calendar with your assistant and team", 0),
		entry("telegram-bot-mcp", "Publish and search messages in Telegram channels through your Telegram bot", 0),
		entry("repo-map", "A structural map of a code repository for navigating large codebases", 0),
	))
	s := x.searcher()
	defer x.searchers.Put(s)
	for _, tc := range []struct {
		query string
		word  string
		kept  bool
	}{
		{"control my lights and thermostat through home assistant", "assistant", true},
		{"which access reviews of our apps are overdue", "access", true},
		{"give my assistant access to the team calendar", "assistant", false},
		{"give my assistant access to the team calendar", "access", false},
		// "The bot" of a sentence is the asker's agent; a Telegram bot is
		// what is asked for.
		{"help the bot find its way around a huge code repository", "bot", false},
		{"post the release notes through our telegram bot", "bot", true},
	} {
		s.parse(x, tc.query)
		kept := slices.ContainsFunc(s.parser.Clauses, func(c lexicon.Clause) bool { return c.Word == tc.word })
		if kept != tc.kept {
			t.Errorf("%q: %q searched for: %v, want %v", tc.query, tc.word, kept, tc.kept)
		}
	}
	wantFirst(t, x, []struct{ query, first string }{
		{"control my lights and thermostat through home assistant", "home-assistant-mcp"},
		{"help the bot find its way around a huge code repository", "repo-map"},
	})
}

// TestEverydayAsksOfTechnicalServers: everyday words for needs whose
// servers use a technical term, each answered first by its own server
// over those that share its everyday words (written from random samples
// of the corpus).
func TestEverydayAsksOfTechnicalServers(t *testing.T) {
	cases := []struct {
		query string
		want  *mcpdir.Entry
		other []*mcpdir.Entry
		found bool // answered, not first: it shares fewer words than the others
	}{
		{"transcribe the interview recording and mark the timestamps where the speaker changes",
			entry("who-spoke", "Diarization for audio files: label who spoke when", 0),
			[]*mcpdir.Entry{entry("smart-speaker", "Control the volume and playback of your smart speaker", 0), entry("interview-quotes", "Search quotes from executive interviews", 0)}, false},
		{"can my assistant check what a medicine interacts with or read its official label?",
			entry("rx-check", "Look up drug information from openFDA and RxNorm", 0),
			[]*mcpdir.Entry{entry("browser-interact", "Let agents interact with web pages: click, type and read", 0), entry("label-printer", "Print official shipping labels from your assistant", 0)}, false},
		{"figure out which customer groups explain the drop in sales",
			entry("segment-finder", "Statistical analysis of tabular data: find the segments that drive a metric", 0),
			[]*mcpdir.Entry{entry("sales-tax", "Sales tax rates by state", 0)}, false},
		{"peek inside a .NET program to see its source code",
			entry("il-decompiler", "Decompile .NET assemblies with ILSpy", 0),
			[]*mcpdir.Entry{entry("net-inventory", "Network source of truth for your programs and devices", 0)}, false},
		{"ask a few different AI models the same question and see if they agree",
			entry("model-router", "LLM gateway: ask GPT, Gemini and Claude through one API", 0),
			[]*mcpdir.Entry{entry("contract-check", "Contract review: find clauses you agree to", 0)}, false},
		{"which factors caused the price change, with regression",
			entry("econometrics", "Econometrics: regression and causal inference in Stata", 0),
			[]*mcpdir.Entry{entry("weather-now", "Current weather conditions and forecasts", 0)}, false},
		{"alert me if a tool I use secretly changes its description",
			entry("pin-tools", "Rug pull detection: pin tool definitions and flag any change", 0),
			[]*mcpdir.Entry{entry("vault-keys", "Keep secrets and API keys in a vault", 0)}, false},
		{"step through my python script line by line to find the bug",
			entry("py-debugger", "Debugger with breakpoints, stepping with pdb", 0),
			[]*mcpdir.Entry{entry("script-runner", "Run Python scripts and return their output", 0)}, false},
		{"simulate air flowing around a car part",
			entry("cfd-solver", "Run CFD studies with OpenFOAM", 0),
			[]*mcpdir.Entry{entry("car-prices", "Used car prices and parts catalog", 0), entry("air-quality", "Air quality index of your city", 0)}, false},
		{"stop two coding agents from editing the same file",
			entry("agent-leases", "Multi-agent coordination: leases and a shared log", 0),
			[]*mcpdir.Entry{entry("file-editor", "Edit text files", 0)}, true},
		{"time the spin of a neutron star from my radio data",
			entry("pulsar-kit", "Pulsar timing with tempo2 and PSRCHIVE", 0),
			[]*mcpdir.Entry{entry("radio-stations", "Listen to radio stations and their data", 0)}, true},
		{"is my website fast enough for google",
			entry("web-vitals", "Core Web Vitals and PageSpeed Insights", 0),
			[]*mcpdir.Entry{entry("google-ads", "Manage Google Ads campaigns for your website", 0)}, true},
		{"remember what we talked about in the last chat",
			entry("long-memory", "Long-term memory for your agent with mem0", 0),
			[]*mcpdir.Entry{entry("chat-talk", "Talk to your servers in a chat", 0)}, true},
		{"find what has been built or approved near this address in Sydney",
			entry("da-tracker", "Development applications and building permits by suburb", 0),
			[]*mcpdir.Entry{entry("address-geocoder", "Geocode an address near you", 0)}, true},
		{"paint and add layers to a picture in a free drawing app",
			entry("krita-bridge", "Krita automation: documents, brushes and export", 0),
			[]*mcpdir.Entry{entry("free-pictures", "Free pictures from a stock photo API", 0)}, false},
		{"see what assembly my C++ code turns into",
			entry("godbolt-mcp", "Compiler Explorer for C and C++", 0),
			[]*mcpdir.Entry{entry("code-assembly", "Assembly instructions for furniture", 0)}, false},
		{"turn on my desktop computer remotely from my phone",
			entry("wol", "Wake-on-LAN: send a magic packet", 0),
			[]*mcpdir.Entry{entry("phone-control", "Control my phone remotely over ADB", 0)}, true},
		{"is the difference between my two groups significant",
			entry("stats-tests", "Hypothesis tests and effect sizes with scipy", 0),
			[]*mcpdir.Entry{entry("text-diff", "The difference between two texts", 0)}, false},
		{"stop my coding agent from deleting the production database",
			entry("agent-guard", "Guardrails for coding agents: block dangerous commands", 0),
			[]*mcpdir.Entry{entry("prod-db", "Query the production database", 0)}, true},
		{"grab still images from a video every few seconds",
			entry("frame-grabber", "Extract frames from video files with FFmpeg", 0),
			[]*mcpdir.Entry{entry("video-saver", "Download videos and images from social media", 0)}, false},
		{"tag and code interview transcripts for my qualitative research",
			entry("qda-tool", "Thematic analysis with NVivo-style codes", 0),
			[]*mcpdir.Entry{entry("interview-search", "Search interview transcripts of executives", 0)}, true},
		{"describe what this chart of sales over time shows in plain words",
			entry("series-narrator", "Time series narration: trends and changes told in text", 0),
			[]*mcpdir.Entry{entry("plain-docs", "Write plain Word documents", 0)}, false},
		{"identify peptides from my mass spec data",
			entry("proteomics-kit", "Proteomics: peptide spectrum scoring", 0),
			[]*mcpdir.Entry{entry("api-spec", "Validate your API spec data", 0)}, false},
		{"read engine fault codes from my car through the obd port",
			entry("obd-reader", "ELM327 adapter: diagnostic trouble codes and live PIDs", 0),
			[]*mcpdir.Entry{entry("port-scan", "Scan a port for faults and read the codes", 0)}, false},
		{"label the objects in my training photos for a vision model",
			entry("box-labeler", "Bounding boxes and image annotation with Label Studio", 0),
			[]*mcpdir.Entry{entry("vision-describe", "Describe photos with a vision model", 0)}, false},
		{"what does my computer have: cpu, memory and os version",
			entry("sysinfo", "System information: hardware and operating system", 0),
			[]*mcpdir.Entry{entry("agent-memory", "Long-term memory for your agent", 0)}, false},
		{"I want to buy a ready-made collection of labelled examples to train my model on",
			entry("data-market", "Search, evaluate and purchase datasets", 0),
			[]*mcpdir.Entry{entry("model-trainer", "Train a model on your examples", 0)}, true},
		{"check that our army AI project ticks every box of the British defence ministry's AI rules",
			entry("jsp936", "JSP 936 compliance matrix for UK defence contracts", 0),
			[]*mcpdir.Entry{entry("army-game", "Command an army in a strategy game", 0)}, false},
		{"list the access reviews that are overdue and start a new certification campaign",
			entry("iga", "Identity governance: access certification for your apps", 0),
			[]*mcpdir.Entry{entry("campaign-mail", "Start a new email campaign", 0)}, false},
		{"check the commercial registration of our supplier: is it active, who owns it and what is its registered capital",
			entry("wathq", "Saudi company lookup via the Wathq API", 0),
			[]*mcpdir.Entry{entry("supplier-portal", "Manage supplier invoices and check payments", 0)}, true},
		{"search what I saw on my screen last week",
			entry("screen-recall", "Screenpipe: your screen history, searchable", 0),
			[]*mcpdir.Entry{entry("weekly-search", "Search the week's top news", 0)}, false},
	}
	for _, tc := range cases {
		x := indexOf(append([]*mcpdir.Entry{tc.want}, tc.other...))
		got := names(x.Search(tc.query, 10))
		if tc.found && !slices.Contains(got, tc.want.Name) {
			t.Errorf("%s: %v, want %s", tc.query, got, tc.want.Name)
		} else if !tc.found && (len(got) == 0 || got[0] != tc.want.Name) {
			t.Errorf("%s: %v, want %s first", tc.query, got, tc.want.Name)
		}
	}
}

// TestTechnicalServersOnTheCorpus checks, on the packages corpus, needs
// that everyday words answered with other servers, or with nothing: what
// caused a change "with regression" (answered nothing, every word of it
// everyday), a building model file (answered citation and file-conversion
// servers), meeting ISO 45001 (answered meeting servers first), and
// requests written blind from samples of the corpus (text from a photo of a
// page answered photo libraries; a fragrance that "smells like" mine, code
// smells; a suspicious program without its source, code search). Each of
// the top n (or, with any, one of them) says one of the words.
func TestTechnicalServersOnTheCorpus(t *testing.T) {
	x := loadIndex(t)
	for _, tc := range []struct {
		query string
		n     int
		words []string
		any   bool
	}{
		{"which factors caused the price change, with regression", 3, []string{"regress", "econometr", "stata"}, false},
		{"open this building model file and check it", 5, []string{"ifc", "bim"}, true},
		{"check our safety meeting minutes meet ISO 45001", 1, []string{"iso"}, false},
		{"pull the text out of a photo of a printed page", 3, []string{"ocr", "text recognition"}, false},
		{"I love my current fragrance, what else smells like it?", 3, []string{"perfume", "fragrance"}, false},
		{"alert me when my favorite blogs post something new", 3, []string{"rss", "feed"}, true},
		{"merge my scanned contract files into one and take out the blank pages", 2, []string{"pdf"}, false},
		{"my watch logs all my cycling and running, tell me if I'm overtraining before my marathon", 3, []string{"training", "workout", "fitness", "strava", "whoop"}, false},
		{"is there known public attack code for the old version of Apache our server runs?", 3, []string{"exploit", "cve", "vulnerab", "kev"}, false},
		{"can the assistant cut the boring parts out of my holiday clips and stitch them into one?", 3, []string{"video", "clip", "capcut"}, false},
		{"which functions call this one anywhere in my project?", 3, []string{"call graph", "code graph", "ast", "code intelligence"}, false},
		{"I wish my assistant remembered what we talked about last week", 3, []string{"memory", "remember"}, false},
		{"how much did I spend eating out last month?", 3, []string{"budget", "finance", "money", "expense", "firefly"}, true},
		{"which machines in the plant are in a fault state right now", 3, []string{"modbus", "plc", "opc", "industrial", "scada"}, true},
		{"check whether text copied from a web page is trying to trick my AI into ignoring its instructions", 3, []string{"inject", "hidden instruction", "security", "poison"}, false},
		{"strip out patient names and ID numbers before I paste text into a chatbot", 3, []string{"pii", "redact", "phi", "anonymi"}, false},
		{"find satellite pictures of my town taken last summer", 3, []string{"satellite", "stac", "imagery", "landsat", "sentinel", "earth"}, true},
		{"can my assistant look at the tables in our company database and answer questions from them?", 3, []string{"database", "db", "sql"}, false},
		{"is this company's share price cheap compared to its competitors?", 3, []string{"stock"}, false},
		{"download container images and clean up the old ones eating my disk space", 3, []string{"docker", "container"}, false},
		{"spin up a new test box on our in-house server cluster and power off the old ones", 3, []string{"vm", "proxmox", "virtual", "cluster"}, false},
		{"can my assistant give me a morning summary of which of our servers are acting up?", 3, []string{"monitor", "alert", "observab", "dynatrace", "signoz", "metrics"}, true},
		{"is there a tool that checks whether AI chatbots will mention my website?", 3, []string{"seo", "geo", "aeo", "visibility", "rank"}, true},
		{"alternative to notion", 3, []string{"notion"}, false}, // "alternative" is how a request is put, as "like" is: nothing answered
		{"print a postage label and compare carrier prices for a box I'm mailing", 3, []string{"ship", "logistic", "carrier", "label"}, true},
		{"try to trick my chatbot into misbehaving before we launch it to customers", 3, []string{"safety", "guard", "red team", "inject", "security", "scan"}, true},
		{"get rid of the logo stamped across my picture", 3, []string{"watermark", "image", "photo"}, true},
		{"run this little script on my own computer and show me what it prints", 3, []string{"sandbox", "run", "execut", "python"}, false},
		{"read this service's interface definition file and tell me which calls are available", 3, []string{"openapi", "swagger", "api"}, false},
		{"who's off today, and how many hours did each employee clock this month?", 3, []string{"employee", "hr", "bamboo", "payroll", "attendance"}, true},
		{"who owns this website name, and when does it run out?", 3, []string{"domain", "whois"}, false},
		{"can you phone the restaurant and book a table for me?", 3, []string{"call", "phone", "voice"}, false},
		{"ask our company's dashboard tool how many signups we had last quarter", 3, []string{"superset", "metabase", "redash", "dashboard", "bi "}, false},
		{"how long is the drive to the airport right now?", 3, []string{"map", "route", "direction"}, true},
		{"search my old chats on the Chinese messaging app for the address a friend sent me", 3, []string{"wechat"}, false},
		{"let a free model on my own computer do the simple boring jobs to save money", 3, []string{"ollama", "local", "vllm", "llama"}, false},
		{"what is this weird symbol and how do I write it as HTML code", 3, []string{"html", "unicode", "symbol", "escape"}, false},
		{"search my old appointments on my Mac, when did I last see the dentist?", 3, []string{"calendar", "ical"}, false},
		{"help me understand what this compiled program does, I only have the binary", 3, []string{"ghidra", "debug", "reverse", "decompil", "disassembl"}, true},
		{"label every car and person in this photo", 3, []string{"label", "detect", "vision", "object"}, false},
		{"make that tiny icon that shows in the browser tab for my website out of my logo", 3, []string{"icon", "favicon"}, true},
		{"publish a post to our brand's official account on China's big messaging app", 3, []string{"wechat", "weixin", "公众号"}, false},
		{"pull the totals and line items out of a pile of scanned invoices and bank statements", 3, []string{"ocr", "invoice"}, true},
		{"can I ask my assistant for numbers from the company's business dashboards?", 3, []string{"superset", "metabase", "redash", "dashboard"}, false},
		{"send order updates to customers' phones through our business chat account", 3, []string{"whatsapp"}, false},
		{"is this IP address or file hash known to be used by hackers?", 3, []string{"threat", "intel", "ioc", "virustotal", "malware", "reputation"}, true},
		{"add records to the online spreadsheet-style database my team uses to track events", 3, []string{"airtable", "nocodb", "baserow"}, false},
		{"is there a way for my assistant to follow a Grand Prix as it happens?", 3, []string{"f1", "formula"}, false},
		{"can an assistant help me figure out what a suspicious program does when I don't have its source code?", 3, []string{"reverse", "decompil", "disassembl", "ida", "ghidra", "malware"}, false},
	} {
		r := x.Search(tc.query, tc.n)
		says := func(h mcpdir.Hit) bool { return saysOneOf(h, tc.words...) }
		switch {
		case tc.any && !slices.ContainsFunc(r.Hits, says):
			t.Errorf("%s: %v, want one of the top %d to say one of %q", tc.query, names(r), tc.n, tc.words)
		case !tc.any && (len(r.Hits) < tc.n || slices.ContainsFunc(r.Hits, func(h mcpdir.Hit) bool { return !says(h) })):
			t.Errorf("%s: %v, want each of the top %d to say one of %q", tc.query, names(r), tc.n, tc.words)
		}
	}
}

// TestUpToDateDocsOfAnyLibrary: up-to-date library documentation for
// coding asks for the servers that fetch any library's docs (Context7,
// llms.txt, DeepWiki), which their briefs often only name: one of them
// first, not one product's docs that shares the request's words.
func TestUpToDateDocsOfAnyLibrary(t *testing.T) {
	x := indexOf([]*mcpdir.Entry{
		entry("context7-srv", "MCP server for Context7", 0),
		entry("llms-txt-docs", "Serve llms.txt documentation over MCP", 0),
		entry("quickshell-docs", "MCP server that fetches live Quickshell library docs for coding agents", 0),
	})
	got := names(x.Search("server to fetch up-to-date library documentation for coding", 10))
	if len(got) == 0 || got[0] == "quickshell-docs" || !slices.Contains(got, "context7-srv") {
		t.Errorf("up-to-date library docs: %v, want a server of any library's docs first, and context7-srv", got)
	}
}

// TestAWordNoEntryHasAsksForItsConcept: a word that entries use for a need
// and people ask with ("smog", "symptoms"), which no entry of this
// directory has, asks for the need's entries rather than finding nothing;
// where an entry has the word, the word finds that entry, not every entry
// of the need.
func TestAWordNoEntryHasAsksForItsConcept(t *testing.T) {
	weather := entry("open-weather", "Weather forecasts and current conditions for any city", 0)
	air := entry("aqi-now", "Air quality index and PM2.5 of your city", 0)
	medical := entry("med-kb", "Medical knowledge: diseases, diagnosis and treatments", 0)
	rooms := entry("room-booker", "Book a meeting room at the office", 0)
	x := indexOf([]*mcpdir.Entry{weather, air, medical, rooms})
	for q, want := range map[string]string{"help me understand my symptoms": "med-kb", "how bad is the smog today": "aqi-now"} {
		if got := names(x.Search(q, 10)); len(got) == 0 || got[0] != want {
			t.Errorf("%s: %v, want %s first", q, got, want)
		}
	}
	sensor := entry("dht-reader", "Read temperature and humidity from a DHT22 sensor", 0)
	x = indexOf([]*mcpdir.Entry{weather, sensor})
	if got := names(x.Search("what's the humidity in my city", 10)); len(got) == 0 || got[0] != "dht-reader" {
		t.Errorf("humidity, said by an entry: %v, want dht-reader first", got)
	}
}

// TestAPlaceOrABoundQualifiesTheNeed: a place, a bound or the subject of
// what is made, or what it is for, that qualifies a need ("restaurants in
// tokyo", "houses for sale in Melbourne under 800k", "make a picture of a
// cat", "… for my blog") is not what an
// entry must have for the directory to be about the query: on the corpus,
// servers that do what is asked answer, though none names it (each
// answered nothing, or a cat-named SDK, before); so does a place whose
// name is of several words (english.txt's place phrases), and the places
// of a way from one to another.
func TestAPlaceOrABoundQualifiesTheNeed(t *testing.T) {
	x := loadIndex(t)
	for q, words := range map[string][]string{
		"restaurants in tokyo":                        {"restaurant"},
		"apartments in london":                        {"apartment", "property", "real estate", "rent"},
		"hotels in rome under 200":                    {"hotel"},
		"houses for sale in Melbourne under 800k":     {"hous", "property", "real estate", "apartment"},
		"make a picture of a cat":                     {"image", "图片", "draw", "picture", "画"},
		"draw me a cat":                               {"image", "图片", "draw", "picture", "画"},
		"draw a dragon breathing fire":                {"image", "图片", "picture", "画"}, // "draw a" asks for a picture: nothing before
		"paint a sunset over the sea":                 {"image", "图片", "picture", "画"},
		"draw me a picture of a lighthouse at sunset": {"image", "图片", "draw", "picture", "画"},
		"draw a fox curled up in a snowy forest":      {"image", "图片", "draw", "picture", "画"}, // "curled" is no curl (isVerbForm): nothing before
		// What it is for: blog servers answered before.
		"make me a picture of a cozy cabin in the snow at dusk for my blog header": {"image", "图片", "draw", "picture", "画"},
		"draw a cartoon for our blog": {"image", "图片", "draw", "picture", "画"},
		// A place's name of several words ("new" and "lumpur" are none
		// alone): a legal data server for "sao", a flat-hunting one for
		// "new york", or nothing answered before.
		"what's the weather in Kuala Lumpur": {"weather"},
		"what's the weather in New York":     {"weather"},
		"what's the weather in São Paulo":    {"weather"},
		"weather in Tel Aviv":                {"weather"},
		"restaurants in San Francisco":       {"restaurant"},
		"hotels in buenos aires under 100":   {"hotel", "酒店"},
		// The two places of a way from one to another (each answered
		// nothing before).
		"flights from london to paris":                   {"flight"},
		"cheapest flight from Kuala Lumpur to Singapore": {"flight"},
		"train tickets from Paris to Lyon":               {"train", "火车"},
		// The dish of a recipe: Nano Banana's image servers, and nothing,
		// answered before.
		"recipe for banana bread":       {"recipe"},
		"recipes with chicken and rice": {"recipe"},
	} {
		r := x.Search(q, 3)
		if len(r.Hits) == 0 || !someSays(r.Hits, words...) {
			t.Errorf("%s: %v, want one of the top 3 to say one of %q", q, names(r), words)
		}
	}
}

// saysOneOf reports whether the hit's name or brief says one of the words
// (lower case, as substrings).
func saysOneOf(h mcpdir.Hit, words ...string) bool {
	b := strings.ToLower(h.Entry.Name + " " + h.Entry.Brief)
	return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(b, w) })
}

// someSays reports whether one of the hits says one of the words
// (saysOneOf).
func someSays(hits []mcpdir.Hit, words ...string) bool {
	return slices.ContainsFunc(hits, func(h mcpdir.Hit) bool { return saysOneOf(h, words...) })
}

// noneSays checks that no hit of r, the answer to query, says one of the
// words (saysOneOf).
func noneSays(t *testing.T, query string, r mcpdir.SearchResult, words ...string) {
	t.Helper()
	for _, h := range r.Hits {
		if saysOneOf(h, words...) {
			t.Errorf("%s: %s (%q) answers", query, h.Entry.Name, h.Entry.Brief)
		}
	}
}

// TestAProductNameIsNotItsStemsWord: the stemmer makes "contentful"
// "content", so a sentence naming Contentful weighed the word as one of
// the 252 entries that say "content", and blog servers answered first. A
// product's name (namedProduct) looks for itself and its own forms, not
// the English words of its stem.
func TestAProductNameIsNotItsStemsWord(t *testing.T) {
	x := loadIndex(t)
	r := x.Search("edit blog entries in our Contentful site", 3)
	n := 0
	for _, h := range r.Hits {
		if saysOneOf(h, "contentful") {
			n++
		}
	}
	if n < 2 {
		t.Errorf("edit blog entries in our Contentful site: %v, want two Contentful servers in the top 3", names(r))
	}
}

// TestAnAcronymsPluralFindsItsSingular: the stemmer leaves "gpus", "pdfs"
// and "llms" whole, so "monitor my gpus" found only the two entries that
// write "GPUs", and not the GPU monitor. The singular is weak evidence of
// the plural where entries write the plural too (pluralLeftWhole).
func TestAnAcronymsPluralFindsItsSingular(t *testing.T) {
	x := loadIndex(t)
	r := x.Search("monitor my gpus", 3)
	if !someSays(r.Hits, "gpu monitoring") {
		t.Errorf("monitor my gpus: %v, want a GPU monitor in the top 3", names(r))
	}
}

// TestAPlaceLeavesTheNeedFirst: a place qualifies the need, and a server
// of the need answers first, where the place comes before a time ("in new
// york tomorrow"), begins keywords ("tokyo weather"), follows another
// language's preposition in a query in that language ("en madrid"), or
// qualifies a word entries use that names no concept ("jobs in london").
// What answered first before is beside each.
func TestAPlaceLeavesTheNeedFirst(t *testing.T) {
	x := loadIndex(t)
	for q, words := range map[string][]string{
		"is it going to rain in New York tomorrow": {"weather"}, // New York's flat hunting
		"tokyo weather":          {"weather"},     // Tokyo's traffic data
		"paris hotels":           {"hotel", "酒店"}, // PARI/GP ("paris" is its stem)
		"new york restaurants":   {"restaurant"},  // New York's flat hunting
		"london restaurants":     {"restaurant"},  // nothing
		"restaurantes en Madrid": {"restaurant"},  // an iMessage bridge named Madrid
		"jobs in london":         {"job"},         // London's market data ("jobs" names no concept)
		"parking in boston":      {"parking"},     // Boston's harbour ferries
	} {
		if r := x.Search(q, 3); len(r.Hits) == 0 || !saysOneOf(r.Hits[0], words...) {
			t.Errorf("%s: %v, want the first to say one of %q", q, names(r), words)
		}
	}
}

// TestAWeakWordSaidInAPhraseMeansThePhrase: "things" is one of the words
// dropped beside others, but "things to do in" asks for a trip's plans;
// kept, it means only that. "things to do in rome" answered nothing, and
// with the word kept as itself the Things app answered second.
func TestAWeakWordSaidInAPhraseMeansThePhrase(t *testing.T) {
	x := loadIndex(t)
	for _, q := range []string{"things to do in rome", "things to do in paris"} {
		r := x.Search(q, 3)
		if len(r.Hits) < 3 || slices.ContainsFunc(r.Hits, func(h mcpdir.Hit) bool { return !saysOneOf(h, "travel", "trip") }) {
			t.Errorf("%s: %v, want three travel planners first", q, names(r))
		}
	}
}

// TestForeignWordsThatSayNothingAreWeak checks that a foreign word whose
// English words say nothing of what a server does ("エージェント": agent,
// "服务器": server) is dropped beside the query's other words, as the
// English word is: its character pairs, rare in the entries, made five
// clauses that outweighed what was asked.
func TestForeignWordsThatSayNothingAreWeak(t *testing.T) {
	x := indexOf([]*mcpdir.Entry{
		entry("weather-jp", "天気予報を取得する", 10),
		entry("agent-kit", "エージェント開発キット", 10),
	})
	wantFirst(t, x, []struct{ query, first string }{
		{"天気のエージェント", "weather-jp"},
	})
}

// TestASongForSomeoneIsMusic checks, on the packages corpus, that what a
// request makes is for someone is no part of the need: "make a song for my
// daughter's birthday" answered family and school servers, for the
// daughter weighed more than the song.
func TestASongForSomeoneIsMusic(t *testing.T) {
	x := loadIndex(t)
	const q = "make a song for my daughter's birthday"
	r := x.Search(q, 10)
	for i, h := range r.Hits[:min(3, len(r.Hits))] {
		if !saysOneOf(h, "song", "music", "suno") {
			t.Errorf("%s: hit %d is %s (%q), want a song maker in the top 3", q, i+1, h.Entry.Name, h.Entry.Brief)
		}
	}
}

// TestSetPhrasesAskForNoOtherSense checks, on the packages corpus, that
// set phrases ask for nothing of their words' other senses: weathering a
// storm answered weather servers, lending a hand loans, a plot twist
// charts, a flight of stairs flight trackers, a borrow checker loan
// calculators and a tornado chart earthquake feeds.
func TestSetPhrasesAskForNoOtherSense(t *testing.T) {
	x := loadIndex(t)
	for q, words := range map[string][]string{
		"weather the storm of layoffs at my company":  {"weather", "forecast"},
		"a rainy day fund budgeting":                  {"weather", "forecast"},
		"lend a hand with my homework":                {"lend", "loan", "defi"},
		"plot twist ideas for my screenplay":          {"chart", "graph"},
		"a flight of stairs accessibility audit":      {"flight"},
		"rust borrow checker error":                   {"loan", "mortgage", "calculator"},
		"under the weather all week, log my symptoms": {"weather", "forecast"},
		"tornado chart for sensitivity analysis":      {"earthquake", "quake", "seismic", "hurricane"},
	} {
		noneSays(t, q, x.Search(q, 10), words...)
	}
}

// TestEverydayWordsFindTheirServers checks, on the packages corpus, that
// needs said in everyday words reach the servers that say them in their
// own: blood sugar is glucose, a scannable code a QR code, the spoken text
// of a video its transcript, and a website down overnight no hotel stay.
func TestEverydayWordsFindTheirServers(t *testing.T) {
	x := loadIndex(t)
	for q, words := range map[string][]string{
		"check my blood sugar readings from my sensor":                               {"glucose", "libre", "dexcom"},
		"block ads on every device in my house":                                      {"adguard", "pi-hole", "pihole"},
		"hide people's personal details before I share this spreadsheet":             {"pii", "redact", "anonymi"},
		"pull the spoken text from a video":                                          {"transcri"},
		"can claude make a scannable code for the menu at my café?":                  {"qr"},
		"what's for lunch at the university cafeteria today":                         {"canteen", "mensa"},
		"stamp CONFIDENTIAL across every page of my pdf":                             {"watermark"},
		"set up an error tracker that shows stack traces":                            {"sentry", "glitchtip", "rollbar"},
		"how many users can my api handle before it falls over":                      {"k6", "jmeter", "locust", "load test"},
		"can my assistant talk to the device on my COM port":                         {"serial"},
		"Untertitel für mein Video erstellen":                                        {"subtitle", "字幕"},
		"ajouter des sous-titres à ma vidéo":                                         {"subtitle", "字幕"},
		"can my assistant tell me if an unknown number that called me is a scammer?": {"phone number", "nummer", "caller"},
	} {
		r := x.Search(q, 10)
		if !someSays(r.Hits[:min(3, len(r.Hits))], words...) {
			t.Errorf("%s: %v, want one that says one of %q in the top 3", q, names(r), words)
		}
	}
	const down = "can my assistant tell me if our website went down overnight?"
	noneSays(t, down, x.Search(down, 10), "hotel", "airbnb", "lodging")
	const flaky = "some of our tests fail randomly, find out which"
	noneSays(t, flaky, x.Search(flaky, 10), "random number", "random integers", "random word")
	const pricing = "compare LLM pricing across providers"
	noneSays(t, pricing, x.Search(pricing, 10), "e-commerce", "shops", "online store")
}
