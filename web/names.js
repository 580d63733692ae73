// Generated names in the player's language. A player with no name of his
// own has one the server makes from his id (docs/protocol.md, "Names"):
// an English adjective, an animal and two digits ("Brave Otter 42"). In
// Russian it is shown in Russian ("Смелая Выдра 42"): the words below, the
// adjective agreeing with the animal's gender. Any other name is shown as
// it is.

const ADJ = {
  Brave: 'Смелый', Calm: 'Спокойный', Clever: 'Умный', Bold: 'Отважный', Bright: 'Яркий', Swift: 'Быстрый', Quiet: 'Тихий', Lucky: 'Везучий',
  Merry: 'Весёлый', Noble: 'Благородный', Proud: 'Гордый', Quick: 'Проворный', Sly: 'Хитрый', Wise: 'Мудрый', Happy: 'Счастливый', Gentle: 'Кроткий',
  Jolly: 'Радостный', Keen: 'Зоркий', Lively: 'Живой', Mighty: 'Могучий', Nimble: 'Ловкий', Patient: 'Терпеливый', Plucky: 'Храбрый', Polite: 'Вежливый',
  Sunny: 'Солнечный', Steady: 'Стойкий', Witty: 'Остроумный', Zesty: 'Задорный', Daring: 'Дерзкий', Eager: 'Рьяный', Fancy: 'Нарядный', Fearless: 'Бесстрашный',
  Friendly: 'Дружелюбный', Gallant: 'Галантный', Golden: 'Золотой', Grand: 'Великий', Hardy: 'Выносливый', Honest: 'Честный', Humble: 'Скромный', Jaunty: 'Бойкий',
  Kind: 'Добрый', Loyal: 'Верный', Mellow: 'Мягкий', Modest: 'Простой', Nifty: 'Ладный', Peppy: 'Бодрый', Rapid: 'Стремительный', Royal: 'Царственный',
  Rustic: 'Сельский', Sharp: 'Острый', Silent: 'Молчаливый', Silver: 'Серебряный', Smart: 'Толковый', Snappy: 'Шустрый', Spry: 'Резвый', Stout: 'Крепкий',
  Sturdy: 'Дюжий', Tidy: 'Опрятный', Tough: 'Суровый', Trusty: 'Надёжный', Upbeat: 'Жизнерадостный', Vivid: 'Пёстрый', Warm: 'Тёплый', Zippy: 'Юркий',
};

/** The animals: the Russian word, with `*` when it is feminine. */
const ANIMAL = {
  Otter: 'Выдра*', Falcon: 'Сокол', Badger: 'Барсук', Beaver: 'Бобр', Bison: 'Бизон', Camel: 'Верблюд', Cheetah: 'Гепард', Cobra: 'Кобра*',
  Condor: 'Кондор', Coyote: 'Койот', Crane: 'Журавль', Dolphin: 'Дельфин', Eagle: 'Орёл', Ferret: 'Хорёк', Fox: 'Лис', Gazelle: 'Газель*',
  Gecko: 'Геккон', Giraffe: 'Жираф', Hawk: 'Ястреб', Hedgehog: 'Ёж', Heron: 'Цапля*', Ibex: 'Козерог', Jackal: 'Шакал', Jaguar: 'Ягуар',
  Koala: 'Коала*', Lemur: 'Лемур', Leopard: 'Леопард', Lion: 'Лев', Lynx: 'Рысь*', Magpie: 'Сорока*', Marten: 'Куница*', Meerkat: 'Сурикат',
  Mole: 'Крот', Moose: 'Лось', Narwhal: 'Нарвал', Ocelot: 'Оцелот', Owl: 'Сова*', Panda: 'Панда*', Panther: 'Пантера*', Parrot: 'Попугай',
  Pelican: 'Пеликан', Penguin: 'Пингвин', Puffin: 'Тупик', Puma: 'Пума*', Rabbit: 'Кролик', Raven: 'Ворон', Seal: 'Тюлень', Shark: 'Акула*',
  Sparrow: 'Воробей', Stork: 'Аист', Swan: 'Лебедь', Tiger: 'Тигр', Toucan: 'Тукан', Turtle: 'Черепаха*', Walrus: 'Морж', Weasel: 'Ласка*',
  Whale: 'Кит', Wolf: 'Волк', Wombat: 'Вомбат', Yak: 'Як', Zebra: 'Зебра*', Bear: 'Медведь', Crow: 'Ворона*', Deer: 'Олень',
};

/** The feminine of a Russian adjective in -ый, -ой, -ий. */
function feminine(a) {
  if (/[ыо]й$/.test(a)) return `${a.slice(0, -2)}ая`;
  if (/[гкхжшчщ]ий$/.test(a)) return `${a.slice(0, -2)}ая`;
  if (/ий$/.test(a)) return `${a.slice(0, -2)}яя`;
  return a;
}

/** `name` as shown in `lang`: a generated name in Russian words, any other as it is. */
export function shownName(name, lang) {
  if (lang !== 'ru' || typeof name !== 'string') return name;
  const m = /^([A-Z][a-z]+) ([A-Z][a-z]+) (\d\d)$/.exec(name);
  if (!m || !ADJ[m[1]] || !ANIMAL[m[2]]) return name;
  const animal = ANIMAL[m[2]];
  const fem = animal.endsWith('*');
  return `${fem ? feminine(ADJ[m[1]]) : ADJ[m[1]]} ${fem ? animal.slice(0, -1) : animal} ${m[3]}`;
}
