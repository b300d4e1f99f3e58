package toolscan

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/mcpdir/mcpdir"
)

// rule is one construction the scanner looks for.
type rule struct {
	kind, severity string
	// hints are lower-case strings one of which any match contains: a
	// cheap test before the expression runs.
	hints []string
	// also, when set, are lower-case strings one of which the text must
	// hold too.
	also []string
	re   *regexp.Regexp
	// keep, when set, decides whether a match counts, from its sentence
	// (text, and the same in lower case).
	keep func(s *scanner, text, lower string, m []int) bool
	note string
}

// oneWord reports whether r can match text without a space (a tag): the
// other rules are not run over identifiers, enum values, patterns.
func (r rule) oneWord() bool { return r.note == tagNote }

const tagNote = "a tag that addresses the model, as hidden instructions are wrapped"

// sentence is the sentence around text[start:end]: from the last full
// stop (of any script), line break or colon-less end before it to the
// next, within sentenceContext bytes either side.
func sentence(text string, start, end int) string {
	from := cutAt(text, max(0, start-sentenceContext))
	if i := strings.LastIndexAny(text[from:start], ".!?\n。！？"); i >= 0 {
		_, size := utf8.DecodeRuneInString(text[from+i:])
		from += i + size
	}
	to := cutAt(text, min(len(text), end+sentenceContext))
	if i := strings.IndexAny(text[end:to], ".!?\n。！？"); i >= 0 {
		to = end + i
	}
	return text[from:to]
}

var (
	// Verbs that ask the model to read something or hand it on: the base
	// form only, as an instruction is written ("read", not "reads"), in
	// the languages the search reads (accents folded away), then in the
	// scripts \b does not know. (Folded text has no accents: Russian "й"
	// and "ё" are written "и" and "е" in the rules.)
	readOrSend = regexp.MustCompile(`\b(read|open|cat|load|pass|send|include|attach|upload|forward|append|post|share|transmit|copy|paste|put|provide|exfiltrate|access|embed|insert|lies|lese|offne|sende|schicke|ubergib|ubergebe|fuge|kopiere|hange|lis|lire|ouvre|envoie|envoyez|joins|inclus|copie|transmets|passe|lee|leer|abre|envia|enviar|incluye|adjunta|copia|pasa|leia|abra|envie|inclua|anexe|copie|leggi|apri|invia|includi|allega|lees|open|stuur)\b|прочитаи|прочти|открои|отправь|пришли|передаи|вставь|скопируи|добавь|считаи|读取|读|打开|发送|发到|传|附上|复制|包含|上传|放入|填入|読み|開い|送信|送っ|含め|コピー|읽|보내`)
	// Verbs that hand something on (not those that only read it).
	handOn = regexp.MustCompile(`\b(pass|send|include|attach|upload|forward|append|post|share|transmit|paste|put|provide|exfiltrate|embed|insert|add|copy|leak|sende|schicke|ubergib|ubergebe|fuge|kopiere|hange|gib|envoie|envoyez|transmets|joins|ajoute|copie|mets|passe|inclus|envia|envie|manda|adjunta|agrega|anade|copia|pon|pasa|incluye|mande|anexe|adicione|coloque|passe|inclua|invia|allega|aggiungi|metti|passa|includi|stuur)\b|отправь|пришли|передаи|вставь|скопируи|добавь|перешли|发送|发到|传|附上|复制|上传|放入|填入|提交|送信|送っ|含め|コピー|貼り付け|보내`)
	// What a content-passing instruction is after.
	secretWords = regexp.MustCompile(`\b(files?|keys?|tokens?|secrets?|passwords?|credentials?|config(uration)?|\.env|environment|ssh|cookies?|session|history|conversation|chat|messages?)\b`)
	// A name that reads as a tool's: snake_case, camelCase or dotted.
	toolLike = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)+$|^[a-z]+[A-Z][A-Za-z0-9]*$`)
	// Words that make a mention of another tool an instruction about it.
	directive = regexp.MustCompile(`\b(always|must|never|instead|important|make\s+sure|ensure|regardless|change|replace|redirect|override|overrid(e|ing)|before|whenever|every\s+time|all\s+(emails|messages|requests|calls))\b`)
	// Words that make text addressed to the model an instruction: it
	// says what to do, not how the tool behaves.
	instructs = regexp.MustCompile(`\b(you|your|call|invoke|use|read|send|include|pass|ignore|disregard|forget|tell|reveal|do\s+not|don't|never|always|must|instead)\b`)
)

// sentenceHas keeps a match whose sentence also matches re.
func sentenceHas(re *regexp.Regexp) func(*scanner, string, string, []int) bool {
	return func(_ *scanner, _, lower string, m []int) bool { return re.MatchString(sentence(lower, m[0], m[1])) }
}

// verbHas keeps a match whose sentence has a verb of re said as an
// instruction: not in a relative clause ("commands that read ~/.ssh are
// refused" says what the tool refuses).
func verbHas(re *regexp.Regexp) func(*scanner, string, string, []int) bool {
	return func(_ *scanner, _, lower string, m []int) bool {
		sen := sentence(lower, m[0], m[1])
		for _, v := range re.FindAllStringIndex(sen, -1) {
			if !relative.MatchString(sen[:v[0]]) {
				return true
			}
		}
		return false
	}
}

var relative = regexp.MustCompile(`\b(that|which|who)\s+$`)

// notPossessive drops "never tell the user's password": the user's, not
// the user; and "do not reveal secret values to the user": keeping a
// secret is not keeping something from the user.
func notPossessive(_ *scanner, _, lower string, m []int) bool {
	rest := lower[m[1]:]
	return !strings.HasPrefix(rest, "'s") && !secretWords.MatchString(lower[m[0]:m[1]])
}

// foreignTool keeps a mention of a tool (the match's first group) that is
// not the server's own, in a sentence that tells the model what to do.
func foreignTool(s *scanner, text, lower string, m []int) bool {
	name := strings.Trim(text[m[2]:m[3]], "`'\"")
	return toolLike.MatchString(name) && !s.own[strings.ToLower(name)] && directive.MatchString(sentence(lower, m[0], m[1]))
}

// ruleSet is rules in the order they run; notes name what they catch.
var rules = []rule{
	{mcpdir.WarnHiddenInstruction, mcpdir.SeverityHigh, []string{"<", "[inst", "[/inst"}, nil,
		regexp.MustCompile(`<\s*/?\s*(important|system|instructions?|secret|hidden|critical|sys|note[_ -]?to[_ -]?(ai|assistant|model|llm)|ai[_ -]?instructions?|assistant[_ -]?(note|instructions?))\s*>|<\|im_start\|>|\[/?inst\]|<<\s*sys\s*>>`),
		nil, tagNote},

	// Setting aside the model's instructions, in words and paraphrase.
	{mcpdir.WarnHiddenInstruction, mcpdir.SeverityHigh, []string{"ignor", "disregard", "forget", "overrid", "bypass", "discard", "pay no attention"}, nil,
		regexp.MustCompile(`\b(ignor(e|es|ing)|disregard(s|ing)?|forget(s|ting)?|overrid(e|es|ing)|bypass(es|ing)?|discard(s|ing)?|pay\s+no\s+attention\s+to)\b[^.\n]{0,40}?\b(previous|prior|above|earlier|preceding|original|system|developer|safety|initial|former|old|existing|all\s+other)\b[^.\n]{0,30}?\b(instructions?|prompts?|rules|directions|guidelines|messages|guidance|directives|commands|orders|context|said|told)\b`),
		nil, "tells the model to set aside its instructions"},
	{mcpdir.WarnHiddenInstruction, mcpdir.SeverityHigh, []string{"you were", "you've been", "you have been", "you got", "no longer", "obsolete", "void", "invalid", "revoked", "superseded", "cancel", "replaced", "discarded", "overridden", "only this", "only these", "your only", "your sole", "your new", "from here on", "from now on", "developer", "the system"},
		[]string{"instruction", "rules", "direction", "guidance", "guideline", "prompt", "directive", "told", "said", "wrote", "taught", "orders", "commands", "follow only", "obey", "from here on", "from now on"},
		regexp.MustCompile(`\b(everything|anything|all|whatever)\s+(that\s+)?(you\s+(were|have\s+been|got)|you've\s+been|you\s+have)\s+(told|given|instructed|taught|received)\b[^.\n]{0,40}?\b(no\s+longer|not|never|doesn't|don't)\b|` +
			`\b(previous|prior|earlier|preceding|original|former|old|above|initial|existing)\s+(instructions|directions|guidance|rules|directives|guidelines|prompts?|orders|commands)\b[^.\n]{0,30}?\b(are|is|were|have\s+been|should\s+be|must\s+be)\s+(now\s+)?(obsolete|void|invalid|revoked|cancel+ed|superseded|replaced|discarded|ignored|overridden|null|no\s+longer)|` +
			`\bthe\s+(guidance|instructions|directions|rules|guidelines|prompt)\s+(you\s+(received|were\s+given|got|have\s+been\s+given)|given\s+to\s+you)\s+(earlier\s+|before\s+|previously\s+|so\s+far\s+)?(is|are)\s+(now\s+)?(void|obsolete|invalid|revoked|cancel+ed|superseded|null|no\s+longer)|` +
			`\btreat\s+(this|these)\s+(text|description|message|words|note|lines?)\s+as\s+your\s+(only|sole|new)\s+(rules|instructions|guidance|prompt)|\bfollow\s+only\s+(this|these)\s+(text|description|instructions|rules)|\bfrom\s+(here|now)\s+on,?\s+(follow|obey)\b|` +
			`\b(anything|everything|what)\s+(your\s+developers?|the\s+system|your\s+system\s+prompt|the\s+developers?)[^.\n]{0,40}?\b(said|told|wrote)\b[^.\n]{0,20}?\b(before|earlier|previously)`),
		nil, "tells the model that its instructions no longer hold"},
	{mcpdir.WarnHiddenInstruction, mcpdir.SeverityHigh, []string{"ignor", "vergiss", "oubli", "olvid", "esquec", "dimentic", "negeer", "alles", "tout ce", "todo lo", "игнор", "забудь", "не обращаи", "что тебе", "что вам", "忽略", "无视", "忽视", "不要理会", "不要管", "不再", "無視", "忘れ", "무시", "잊"},
		// words of the other languages one of which each form holds
		[]string{"vorherig", "bisherig", "fruher", "obige", "vorige", "vorangegangen", "ursprunglich", "gilt nicht", "ungultig", "hinfallig", "precedent", "anterieur", "ci-dessus", "d'avant", "s'applique plus", "anterior", "previas", "de antes", "ya no", "negeer", "предыдущ", "прежн", "ранее", "прошл", "больше не", "之前", "以前", "先前", "上面", "前面", "此前", "上述", "原来", "これまで", "上記", "の指示", "の命令", "のルール", "이전", "앞의", "위의"},
		regexp.MustCompile(`\b(ignorier\w*|vergiss|vergessen\s+sie)\s+(alle\s+|samtliche\s+)?(vorherigen|bisherigen|fruheren|obigen|vorigen|vorangegangenen|alten|ursprunglichen)\s+(anweisungen|instruktionen|regeln|befehle|vorgaben|anordnungen)|` +
			`\balles,?\s+was\s+(dir|ihnen|du)\s+(zuvor|vorher|bisher|fruher)?\s*(gesagt|mitgeteilt|vorgegeben)\s+(wurde|worden\s+ist|hast)[^.\n]{0,20}?\b(gilt\s+nicht\s+mehr|ist\s+ungultig|ist\s+hinfallig)|` +
			`\b(ignore[zs]?|oublie[zs]?)\s+(toutes\s+|tous\s+)?(les\s+|tes\s+|vos\s+)?(instructions|consignes|regles|directives|ordres|indications)\s+(precedentes|anterieures|ci-dessus|d'avant)|` +
			`\btout\s+ce\s+qu(e|'on|'il)\s+(on\s+)?(t'a|vous\s+a)\s+(dit|ete\s+dit|demande)[^.\n]{0,30}?\bne\s+s'applique\s+plus|` +
			`\b(ignora|ignore|ignoren|olvida|olvide|olvidate\s+de)\s+(todas\s+)?(las\s+|tus\s+|sus\s+)?(instrucciones|indicaciones|reglas|ordenes|directrices)\s+(anteriores|previas|de\s+antes)|` +
			`\btodo\s+lo\s+que\s+(te|le|se\s+te)\s+(dijeron|han\s+dicho|dije|indicaron)[^.\n]{0,30}?\bya\s+no\s+(aplica|vale|es\s+valido|sirve|cuenta)|` +
			`\b(ignore|ignora|esqueca|esquece)\s+(todas\s+)?(as\s+|suas\s+)?(instrucoes|regras|orientacoes|ordens)\s+(anteriores|previas)|` +
			`\b(ignora|ignori|dimentica|dimentichi)\s+(tutte\s+)?(le\s+)?(istruzioni|regole|indicazioni|direttive)\s+(precedenti|anteriori|di\s+prima)|` +
			`\bnegeer\s+(alle\s+)?(vorige|eerdere|voorgaande)\s+(instructies|regels|opdrachten)|` +
			`(игнорир\p{L}*|игнорь\p{L}*|забудь\p{L}*|не\s+обращаи\s+внимания\s+на)\s+(все\s+)?(предыдущ\p{L}+|прежн\p{L}+|ранее\s+\p{L}+|прошл\p{L}+)\s+(инструкц\p{L}+|указан\p{L}+|правил\p{L}*|команд\p{L}*|сообщен\p{L}+)|` +
			`(все|все),?\s+что\s+(тебе|вам)\s+(говорили|сказали|писали|велели)\s*(раньше|ранее|до\s+этого|прежде)?[^.\n]{0,20}?больше\s+не\s+(деиствует|деиствует|применяется|важно|актуально)|` +
			`(忽略|无视|忽视|不要理会|不要管)[^。\n]{0,8}(之前|以前|先前|上面|前面|此前|上述|原来)[^。\n]{0,8}(指令|指示|说明|规则|命令|要求)|(之前|以前|先前)(告诉你|对你说|给你)的[^。\n]{0,8}不再(适用|有效)|` +
			`(以前|前|これまで|上記)の(指示|命令|ルール)[^。\n]{0,10}(無視|忘れ)|(이전|앞의|위의)\s*(모든\s*)?(지시|명령|지침)[^.\n]{0,10}(무시|잊)`),
		nil, "tells the model to set aside its instructions"},

	// Keeping something from the user.
	{mcpdir.WarnHiddenInstruction, mcpdir.SeverityHigh, []string{"not", "n't", "never"}, []string{"user", "human", "person"},
		regexp.MustCompile(`\b(do\s+not|don't|never|must\s+not|should\s+not|shouldn't)\s+(tell|inform|notify|alert|warn|let)\s+(the\s+|your\s+)?(users?|humans?|person)\b|\b(do\s+not|don't|never|must\s+not)\s+(mention|reveal|show|disclose|say|explain|report|admit)\b[^.\n]{0,60}?\bto\s+(the\s+|your\s+)?(users?|humans?)\b`),
		notPossessive, "tells the model to keep something from the user"},
	{mcpdir.WarnHiddenInstruction, mcpdir.SeverityHigh, []string{"without", "hide", "conceal", "keep this", "keep it", "keep that", "keep these", "never let", "needn't", "need not", "need to", "should never", "must never", "not know", "n't know", "not see", "n't see", "not notice", "n't notice", "not hear", "n't hear", "not be", "n't be"}, []string{"user", "human", "person", "yourself"},
		regexp.MustCompile(`\bwithout\s+(telling|informing|notifying|alerting|letting)\s+(the\s+)?(user|human)|\b(hide|conceal)\b[^.\n]{0,40}?\bfrom\s+(the\s+)?(user|human)|\b(the\s+)?(user|human)\s+(must|should|does|need|needs)\s*(not|n't)\s+(know|see|notice|hear|be\s+(told|informed|aware))|` +
			`\bkeep\s+(this|it|that|these)\s+(\w+\s+)?(to\s+yourself|from\s+(the\s+)?(user|human|person))|\bnever\s+let\s+(the\s+)?(user|human|person|people|them)\b[^.\n]{0,40}?\b(know|find\s+out|see|notice|learn|discover)\b|` +
			`\b(the\s+)?(user|human)\s+(needn't|need\s+not|doesn't\s+need\s+to|does\s+not\s+need\s+to|should\s+never|must\s+never)\s+(know|hear|see|notice|be\s+told|find\s+out)`),
		nil, "tells the model to act behind the user's back"},
	{mcpdir.WarnHiddenInstruction, mcpdir.SeverityHigh, []string{"quietly", "silently", "secretly", "covertly", "discreetly"}, nil,
		regexp.MustCompile(`\b(quietly|silently|secretly|covertly|discreetly)\s+(\w+\s+){0,2}?(copy|send|read|include|attach|upload|forward|pass|put|add|append|post|share|exfiltrate|leak|collect)\b`),
		nil, "tells the model to act behind the user's back"},
	{mcpdir.WarnHiddenInstruction, mcpdir.SeverityHigh, []string{"benutzer", "nutzer", "anwender", "utilisat", "usuario", "utente", "пользовател", "用户", "使用者", "ユーザー", "사용자", "gebruiker"}, nil,
		regexp.MustCompile(`\b(sag|sage|sagen\s+sie|erzahl|erzahle|verrat|verrate|teile|informiere|erwahne)\s+(dem|der|den)\s+(benutzer|nutzer|anwender)\w*\s+(nichts|nicht|kein)|\b(dem|der)\s+(benutzer|nutzer|anwender)\w*\s+(nichts|nicht)\s+(sagen|verraten|mitteilen|erzahlen|davon)|ohne\s+(den|die)\s+(benutzer|nutzer)\w*\s+zu\s+(informieren|fragen)|` +
			`\bne\s+(dis|dites|mentionne|mentionnez|revele|revelez|signale|signalez|informe|informez|previens|prevenez)\s+(rien\s+|pas\s+|jamais\s+)?(de\s+cela\s+|de\s+ceci\s+)?(a\s+)?l'\s*utilisat(eur|rice)|\bn'(informe|informez|avertis|avertissez)\s+(pas|jamais)\s+l'\s*utilisat|sans\s+(le\s+dire|en\s+informer|prevenir)\s+(a\s+)?l'\s*utilisat|` +
			`\bno\s+(le\s+)?(digas|diga|menciones|mencione|cuentes|cuente|informes|informe|reveles|revele|avises|avise)\s+(nada\s+)?(de\s+esto\s+)?(al|a\s+el|a\s+los)\s+usuarios?|sin\s+(decirle|avisar|informar)\s+al\s+usuario|` +
			`\bnao\s+(conte|diga|mencione|informe|avise|revele)\s+(nada\s+)?(ao|para\s+o|a|aos)\s+usuarios?|` +
			`\bnon\s+(dire|dirlo|dirglielo|menzionare|informare|rivelare|avvisare)\s+(nulla\s+|niente\s+)?(all'|a\s+l'|agli\s+)?utent[ei]|` +
			`\bvertel\s+(het\s+)?(de\s+)?gebruiker\s+(niets|niet)|` +
			`не\s+(говори|сообщаи|рассказываи|упоминаи|показываи|сказываи|уведомляи|информируи)\p{L}*\s+(ничего\s+)?(об\s+этом\s+)?пользовател|ничего\s+не\s+(говори|сообщаи|рассказываи)\p{L}*\s+пользовател|без\s+ведома\s+пользовател|` +
			`(不要|别|請勿|请勿|切勿|不得|不可)(告诉|告訴|通知|告知|提醒|透露给|让)(用户|使用者)|ユーザー(に|には)[^。\n]{0,6}(伝えない|言わない|知らせない|教えない)|사용자(에게|한테)[^.\n]{0,6}(알리지|말하지)\s*마`),
		nil, "tells the model to keep something from the user"},

	{mcpdir.WarnHiddenInstruction, mcpdir.SeverityHigh, []string{"you are now", "instructions", "system prompt", "from now on"}, nil,
		regexp.MustCompile(`\byou\s+are\s+now\s+(a|an|in)\b|\bnew\s+(system\s+)?instructions\s*:|\bsystem\s+prompt\s*:|\bfrom\s+now\s+on,?\s+you\b`),
		nil, "gives the model new instructions of its own"},
	// A note to the model counts when it tells the model to do something:
	// "note to the model: prompts over 1000 characters are truncated" is
	// how a tool works.
	{mcpdir.WarnHiddenInstruction, mcpdir.SeverityHigh, []string{"note to", "note for", "dear", "hey"}, nil,
		regexp.MustCompile(`\bnote\s+(to|for)\s+(the\s+)?(ai|assistant|model|llm|agent)\b|\b(dear|hey)\s+(ai|assistant|model|llm|agent|claude|chatgpt|gpt|gemini|copilot)\b`),
		func(_ *scanner, _, lower string, m []int) bool {
			return instructs.MatchString(lower[m[1]:cutAt(lower, min(len(lower), m[1]+hintWindow))])
		}, "addresses the model over the user's head"},
	{mcpdir.WarnHiddenInstruction, mcpdir.SeverityHigh, []string{"system:", "assistant:"}, nil,
		regexp.MustCompile(`(^|[.!?>]\s*)(system|assistant)\s*:\s`),
		func(_ *scanner, text, _ string, m []int) bool {
			// "SYSTEM:" or "ASSISTANT:" as a chat role is written in capitals;
			// "Operating system: linux" is not one.
			span := strings.TrimSpace(strings.TrimLeft(text[m[0]:m[1]], ".!?> "))
			return strings.HasPrefix(span, "SYSTEM") || strings.HasPrefix(span, "ASSISTANT")
		}, "addresses the model over the user's head"},
	// Text a rendered page hides — an HTML comment, a link's title — that
	// tells the model what to do.
	{mcpdir.WarnHiddenInstruction, mcpdir.SeverityMedium, []string{"<!--", "]("}, nil,
		regexp.MustCompile(`<!--[\s\S]{0,400}?(-->|$)|\]\([^)\s]*\s+("[^"]{0,400}"|'[^']{0,400}')\s*\)`),
		func(_ *scanner, _, lower string, m []int) bool {
			return instructs.MatchString(lower[m[0]:m[1]])
		}, "an instruction where a rendered page hides it (an HTML comment or a link's title): a model reads it, a person does not see it"},

	{mcpdir.WarnCredentialAccess, mcpdir.SeverityHigh, []string{"ssh", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "/credentials", "-credentials", ".netrc", ".npmrc", ".pypirc", ".pgpass", "/config", "_config", "/etc/passwd", "/etc/shadow", "mcp.json", "cursor/", "wallet.dat", "_history", "gnupg", ".env"}, nil,
		regexp.MustCompile(`(~|\$home|%userprofile%)?/?\.ssh\b/?|\bid_(rsa|dsa|ecdsa|ed25519)\b|\.aws/credentials|\.git-credentials|(^|[\s"'\x60(/~])\.(netrc|npmrc|pypirc|pgpass)\b|\.kube/config|\.docker/config\.json|/etc/(passwd|shadow)\b|\bmcp\.json\b|claude_desktop_config\.json|\.cursor/|\bwallet\.dat\b|\.(bash|zsh)_history|\.gnupg\b|(^|[\s"'\x60(/~])\.env\b`),
		verbHas(readOrSend), "asks the model to read or hand on a secret or a local file"},
	{mcpdir.WarnCredentialAccess, mcpdir.SeverityHigh, []string{"content", "text"}, []string{"pass", "send", "include", "attach", "upload", "forward", "append", "post", "share", "transmit", "paste", "put", "provide", "exfiltrate", "embed", "insert", "add"},
		regexp.MustCompile(`\b(its|the|their|that|this|whole|full|entire)\s+(file'?s?\s+)?(content|contents|text)\s+(as|in|into|inside|via|through)\b|\b(content|contents)\s+of\s+(the\s+|any\s+|every\s+|all\s+)?(file|files|key|keys)\b`),
		func(_ *scanner, _, lower string, m []int) bool {
			sen := sentence(lower, m[0], m[1])
			return handOn.MatchString(sen) && secretWords.MatchString(sen)
		}, "asks the model to pass a file's or a secret's content into a call"},
	{mcpdir.WarnCredentialAccess, mcpdir.SeverityHigh, []string{"environment", "env vars", "api key", "private key", "ssh key", "secrets", "tokens", "session token", "credentials", "passwords", "cookies"}, nil,
		regexp.MustCompile(`\b(all|every|any|your|the\s+user'?s|their)\s+(environment\s+variables|env\s+vars|api\s+keys?|secrets|tokens|credentials|passwords|private\s+keys?|ssh\s+keys?|cookies|session\s+tokens?)\b`),
		sentenceHas(handOn), "asks the model to hand on keys, tokens or passwords"},
	{mcpdir.WarnCredentialAccess, mcpdir.SeverityHigh, []string{"schlussel", "passworter", "zugangsdaten", "umgebungsvariablen", "les cles", "tes cles", "vos cles", "mots de passe", "jetons", "identifiants", "variables d'env", "claves", "contrasenas", "credenciales", "variables de entorno", "chaves", "senhas", "credenciais", "chiavi", "credenziali", "ключ", "парол", "токен", "секрет", "переменные окружения", "密钥", "密码", "令牌", "凭据", "凭证", "环境变量", "秘钥", "キー", "パスワード", "トークン", "環境変数"}, nil,
		regexp.MustCompile(`\b(alle|samtliche|deine|ihre)\s+(api-?\s?schlussel|schlussel|passworter|zugangsdaten|tokens|geheimnisse|umgebungsvariablen|privaten\s+schlussel)|` +
			`\b(toutes\s+les|tous\s+les|tes|vos)\s+(cles|mots\s+de\s+passe|jetons|tokens|secrets|identifiants|variables\s+d'environnement)|` +
			`\b(todas\s+las|todos\s+los|tus|sus)\s+(claves|contrasenas|tokens|secretos|credenciales|variables\s+de\s+entorno)|` +
			`\b(todas\s+as|todos\s+os|suas)\s+(chaves|senhas|tokens|segredos|credenciais|variaveis\s+de\s+ambiente)|` +
			`\b(tutte\s+le|tutti\s+i|le\s+tue)\s+(chiavi|password|token|segreti|credenziali|variabili\s+d'ambiente)|` +
			`(все|все|свои|твои)\s+(api[- ]?)?(ключи|пароли|токены|секреты|учетные\s+данные|переменные\s+окружения)|` +
			`(所有|全部|一切)(的)?\s*(api\s*)?(密钥|密码|令牌|凭据|凭证|环境变量|秘钥)|(すべて|全て)の\s*(api\s*)?(キー|鍵|パスワード|トークン|環境変数)`),
		sentenceHas(handOn), "asks the model to hand on keys, tokens or passwords"},

	{mcpdir.WarnToolShadowing, mcpdir.SeverityHigh, []string{"tool"}, nil,
		regexp.MustCompile("\\b(?:the|a|any)\\s+(`?[A-Za-z][\\w.-]*`?)\\s+tool\\b|\\btool\\s+(`?[A-Za-z][\\w.-]*`?)"),
		func(s *scanner, text, lower string, m []int) bool {
			if m[2] < 0 { // the second form
				m = []int{m[0], m[1], m[4], m[5]}
			}
			return foreignTool(s, text, lower, m)
		}, "tells the model how to use a tool this server does not offer"},
	{mcpdir.WarnToolShadowing, mcpdir.SeverityHigh, []string{"call", "invok", "use", "using", "run"}, []string{"when", "if", "before", "after"},
		regexp.MustCompile("\\b(?:when|whenever|if|before|after)\\s+(?:you\\s+)?(?:use|call|invoke|using|calling|invoking|run|running)\\s+(?:the\\s+|any\\s+)?(`?[A-Za-z][\\w.-]*`?)"),
		foreignTool, "tells the model how to use a tool this server does not offer"},
	{mcpdir.WarnToolShadowing, mcpdir.SeverityHigh, []string{"invoked", "called", "used", "executed", "run"}, []string{"when", "if", "before", "after", "each time", "every time"},
		regexp.MustCompile("\\b(?:when|whenever|if|before|after|each\\s+time|every\\s+time)\\s+(?:the\\s+)?(?:\\([\\w.-]+\\)\\s*)?(`?[A-Za-z][\\w.-]*`?)\\s+(?:tool\\s+)?(?:is|gets|has\\s+been)\\s+(?:invoked|called|used|executed|run)\\b"),
		foreignTool, "tells the model how to use a tool this server does not offer"},
	{mcpdir.WarnToolShadowing, mcpdir.SeverityHigh, []string{"call", "invoke", "use "}, []string{"also", "first", "then", "must", "always", "make sure"},
		regexp.MustCompile("\\b(?:also|first|then|always|must)\\s+(?:call|invoke|use)\\s+(?:the\\s+)?(`?[A-Za-z][\\w.-]*`?)"),
		// "also call X" asks for another call; "first call X" or "always
		// call X first" is how a tool is used, unless it hands something on.
		func(s *scanner, text, lower string, m []int) bool {
			name := strings.Trim(text[m[2]:m[3]], "`'\"")
			if !toolLike.MatchString(name) || s.own[strings.ToLower(name)] {
				return false
			}
			sen := sentence(lower, m[0], m[1])
			return strings.HasPrefix(lower[m[0]:], "also") || handOn.MatchString(sen) || secretWords.MatchString(sen)
		}, "tells the model to call a tool this server does not offer"},
	{mcpdir.WarnToolShadowing, mcpdir.SeverityHigh, []string{"other"}, nil,
		regexp.MustCompile(`\b(all|any|every)\s+other\s+(tools?|servers?|mcp\s+servers?)\b`),
		sentenceHas(directive), "gives instructions for other servers' tools"},
}
